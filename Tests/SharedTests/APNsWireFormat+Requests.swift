import NIOCore
import NIOHPACK
import Testing

@testable import Shared

@Suite struct APNsWireFormatTests {
    let body = ByteBuffer(string: #"{"aps":{"event":"update","timestamp":1800000000,"content-state":{}}}"#)

    @Test func aRequestCarriesAPNsHeadersWithPerRequestValuesUnindexed() {
        let request = APNsRequest(
            deviceToken: "ab12", topic: "com.example.app.push-type.liveactivity", body: self.body,
            priority: .powerConsiderate, expiration: 1_800_000_600, apnsID: "0b9e3f2a-6c1d-4e57-9a7b-2f3c4d5e6f70")
        let headers = APNsWireFormat.requestHeaders(
            for: request, authorization: "bearer JWT", authority: "api.push.apple.com")
        var seen: [String: (value: String, indexable: Bool)] = [:]
        for (name, value, indexing) in headers { seen[name] = (value, indexing == .indexable) }
        #expect(seen[":method"]?.value == "POST")
        #expect(seen[":path"]?.value == "/3/device/ab12")
        #expect(seen["apns-push-type"]?.value == "liveactivity")
        #expect(seen["apns-priority"]?.value == "5")
        #expect(seen["apns-expiration"]?.value == "1800000600")
        #expect(seen["content-length"]?.value == "\(self.body.readableBytes)")
        #expect(seen["apns-collapse-id"] == nil)
        // What changes per request stays out of HPACK's dynamic table; what every request shares goes in.
        #expect(seen[":path"]?.indexable == false)
        #expect(seen["apns-id"]?.indexable == false)
        #expect(seen["apns-expiration"]?.indexable == false)
        #expect(seen["authorization"]?.indexable == true)
        #expect(seen["apns-topic"]?.indexable == true)
    }

    @Test func answersBecomeTypedOutcomes() {
        #expect(APNsWireFormat.outcome(status: 200, apnsID: "x", body: nil) == .accepted(apnsID: "x"))
        let gone = ByteBuffer(string: #"{"reason":"Unregistered","timestamp":1790000000000}"#)
        #expect(
            APNsWireFormat.outcome(status: 410, apnsID: nil, body: gone)
                == .rejected(status: 410, reason: .unregistered, timestamp: 1_790_000_000_000))
        // A body that is not APNs' JSON still gives an outcome, named after the status.
        #expect(
            APNsWireFormat.outcome(status: 502, apnsID: nil, body: ByteBuffer(string: "<html>"))
                == .rejected(status: 502, reason: .unknown("HTTP 502"), timestamp: nil))
    }
}
