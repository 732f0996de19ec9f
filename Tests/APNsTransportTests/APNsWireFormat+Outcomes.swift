import NIOCore
import Testing

@testable import APNsTransport

@Suite struct APNsWireFormatTests {
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
