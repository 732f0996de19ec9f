import Foundation
import Testing

@Suite struct PushDeliveryAudienceTests {
    static func update(audience: String, timestamp: Int) -> String {
        """
        {"audience":\(audience),"device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update",
         "name":"match","content_state":{"home":\(timestamp % 100)},"timestamp":\(timestamp)}}}}
        """
    }

    @Test func everySelectorKindReachesExactlyItsTokens() async throws {
        try await EndToEndHarness.run { e2e in
            let gw = e2e.gateway
            let setups: [(String, String)] = [
                ("c1", #","tags":["vip"],"tag_groups":{"tier":["gold"]},"named_user_id":"alice""#),
                ("c2", #","tags":["vip"],"tag_groups":{"tier":["silver"]}"#),
                ("c3", #","named_user_id":"bob""#),
                ("c4", #","tags":["casual"],"tag_groups":{"tier":["gold"]}"#),
                ("c5", #","tags":["vip"],"live_activities_enabled":false"#),
                ("c6", #","tags":["vip"]"#),
            ]
            var channels: [String: String] = [:]
            for (index, (name, extra)) in setups.enumerated() {
                let id = try await gw.registerChannel(e2e.app, installID: name, extra: extra)
                channels[name] = id
                let activity = name == "c6" ? "other" : "match"
                try await gw.track(
                    e2e.app, channel: id, name: activity, token: hexToken(index + 1), systemID: "sys-\(name)")
            }
            let c = { (name: String) in channels[name]! }
            let pushes: [(String, Int)] = [
                (#""all""#, 4),
                (#"{"tag":"vip"}"#, 2),
                (#"{"tag":"gold","group":"tier"}"#, 2),
                (#"{"ios_channel":"\#(c("c3"))"}"#, 1),
                (#"{"ios_channel":["\#(c("c1"))","\#(c("c4"))"]}"#, 2),
                (#"{"named_user":"alice"}"#, 1),
                (#"{"and":[{"tag":"vip"},{"not":{"tag":"gold","group":"tier"}}]}"#, 1),
                (#"{"or":[{"named_user":"bob"},{"tag":"casual"}]}"#, 2),
            ]
            for (index, (audience, expected)) in pushes.enumerated() {
                let id = try await e2e.send(Self.update(audience: audience, timestamp: 1_700_000_000 + index))
                let report = try await e2e.finished(id)
                let counts = report["counts"] as? [String: Int] ?? [:]
                #expect(report["state"] as? String == "done", "\(audience): \(report)")
                #expect(counts["targeted"] == expected, "\(audience): \(counts)")
                #expect(counts["accepted"] == expected, "\(audience): \(counts)")
            }
            let expected = [1: 5, 2: 3, 3: 3, 4: 4, 5: 0, 6: 0]
            for (n, count) in expected.sorted(by: { $0.key < $1.key }) {
                #expect(try await e2e.accepted(hexToken(n)) == count, "c\(n)")
            }
        }
    }
}
