import Foundation
import LiveActivitiesCore
import Testing

@Suite struct PushRequestDecodingTests {
    func decode(_ json: String) throws -> PushSubmission {
        do {
            return try JSONDecoder().decode(PushSubmission.self, from: Data(json.utf8))
        } catch let error as DecodingError {
            throw ValidationError(decoding: error)
        }
    }

    func push(audience: String) -> String {
        #"{"audience":\#(audience),"device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"end","name":"m"}}}}"#
    }

    @Test func audiencesDecodeToTheirSelectors() throws {
        let id = UUID()
        let cases: [(String, Audience)] = [
            (#""all""#, .all),
            (#"{"tag":"vip"}"#, .tag("vip", group: "device")),
            (#"{"tag":"gold","group":"tier"}"#, .tag("gold", group: "tier")),
            (#"{"ios_channel":"\#(id.uuidString)"}"#, .channels([id])),
            (#"{"named_user":"u"}"#, .namedUser("u")),
            (
                #"{"and":[{"tag":"a"},{"not":{"or":[{"named_user":"x"},"all"]}}]}"#,
                .and([.tag("a", group: "device"), .not(.or([.namedUser("x"), .all]))])
            ),
        ]
        for (json, expected) in cases {
            #expect(try self.decode(self.push(audience: json)).pushes[0].audience == expected, "\(json)")
        }
    }

    @Test func badAudiencesNameTheirPath() {
        let cases: [(String, String)] = [
            (#""everyone""#, "audience"),
            (#"{"tag":"a","named_user":"b"}"#, "audience"),
            (#"{"group":"g","named_user":"b"}"#, "audience.group"),
            (#"{"and":[]}"#, "audience.and"),
            (#"{"not":{"tag":""}}"#, "audience.not.tag"),
            (
                String(repeating: #"{"not":"#, count: 9) + #""all""# + String(repeating: "}", count: 9),
                "audience.not.not.not.not.not.not.not.not"
            ),
        ]
        for (json, path) in cases {
            let error = #expect(throws: ValidationError.self) { try self.decode(self.push(audience: json)) }
            #expect(error?.path == path, "\(json)")
        }
    }

    @Test func thePayloadIsEncodedOnceAsAPNsWantsIt() throws {
        let notification = LiveActivityNotification(
            event: .update, name: "m", contentState: ["score": .integer(2)], priority: 5, staleDate: 1_800_000_100)
        let bytes = try APNsPayload.encode(notification, timestamp: 1_800_000_000, path: "x")
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"aps":{"content-state":{"score":2},"event":"update","stale-date":1800000100,"timestamp":1800000000}}"#
        )
        let big = LiveActivityNotification(
            event: .update, name: "m", contentState: ["t": .string(String(repeating: "x", count: 5000))])
        let error = #expect(throws: ValidationError.self) { try APNsPayload.encode(big, timestamp: 1, path: "x") }
        #expect(error?.rule.contains("bytes; APNs allows 4096") == true)
    }
}
