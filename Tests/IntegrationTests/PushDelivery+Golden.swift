import Foundation
import Testing

/// The requests for start, update and end, as the simulator received them, against golden files.
@Suite struct PushDeliveryGoldenTests {
    static func golden(_ name: String) throws -> [String: Any] {
        let url = try #require(Bundle.module.resourceURL).appendingPathComponent("Fixtures/golden/\(name).json")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }

    static func push(_ liveActivity: String) -> String {
        #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":\#(liveActivity)}}}"#
    }

    func expectMatches(_ e2e: EndToEndHarness, token: String, golden name: String) async throws {
        let recorded = try await e2e.simulator.notifications(token: token)
        let last = try #require(recorded.last, "\(name): nothing recorded")
        let golden = try Self.golden(name)
        let headers = last["headers"] as? [String: String] ?? [:]
        for (field, value) in golden["headers"] as! [String: String] {
            #expect(headers[field] == value, "\(name): \(field)")
        }
        #expect(headers["authorization"]?.hasPrefix("bearer ") == true, "\(name): provider token")
        #expect(headers["apns-expiration"] == nil && headers["apns-collapse-id"] == nil, "\(name): \(headers)")
        let body = try #require(last["body"] as? [String: Any])
        #expect(NSDictionary(dictionary: body).isEqual(to: golden["body"] as! [String: Any]), "\(name): \(body)")
    }

    @Test func startUpdateAndEndMatchAPNsSpec() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            let channel = try await gw.registerChannel(e2e.app, installID: "fan-1")
            let startToken = hexToken(100, bytes: 80)
            #expect(
                try await gw.request(
                    .put, "/api/channels/\(channel)/push-to-start/MatchAttributes",
                    json: #"{"token":"\#(startToken)"}"#,
                    auth: e2e.app.device
                ).status == .created)

            let start = try await e2e.send(
                Self.push(
                    #"""
                    {"event":"start","name":"match","attributes_type":"MatchAttributes","attributes":{"home":"Lions","away":"Tigers"},
                     "content_state":{"home":0,"away":0,"minute":0},"stale_date":1800003600,"relevance_score":50,
                     "alert":{"title":"Kick-off","body":"Lions v Tigers is about to start","sound":"whistle.caf"},
                     "timestamp":1700000000}
                    """#))
            #expect(
                try await e2e.finished(start)["counts"] as? [String: Int] == [
                    "targeted": 1, "sent": 1, "accepted": 1, "failed": 0, "skipped": 0, "canceled": 0, "superseded": 0,
                ])
            try await self.expectMatches(e2e, token: startToken, golden: "start")

            // The device reports the new activity's token; update and end go to it.
            let token = hexToken(1)
            try await gw.track(
                e2e.app, channel: channel, name: "match", token: token, systemID: "A", attributesType: "MatchAttributes"
            )
            let update = try await e2e.send(
                Self.push(
                    #"""
                    {"event":"update","name":"match","content_state":{"home":1,"away":0,"minute":12},"priority":5,
                     "stale_date":1800003600,"timestamp":1700000100}
                    """#))
            #expect((try await e2e.finished(update)["counts"] as? [String: Int])?["accepted"] == 1)
            try await self.expectMatches(e2e, token: token, golden: "update")

            let end = try await e2e.send(
                Self.push(
                    #"""
                    {"event":"end","name":"match","content_state":{"home":2,"away":1,"minute":90},
                     "alert":{"title":"Full time","body":"Lions win 2-1"},"dismissal_date":1800007200,
                     "timestamp":1700000200}
                    """#))
            #expect((try await e2e.finished(end)["counts"] as? [String: Int])?["accepted"] == 1)
            try await self.expectMatches(e2e, token: token, golden: "end")

            // End ended the instance: nothing is targeted any more.
            let after = try await e2e.send(
                Self.push(#"{"event":"update","name":"match","content_state":{"home":3},"timestamp":1700000300}"#))
            #expect((try await e2e.finished(after)["counts"] as? [String: Int])?["targeted"] == 0)
            #expect(try await e2e.requests(token) == 2)
        }
    }
}
