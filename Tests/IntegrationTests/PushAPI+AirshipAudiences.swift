import Foundation
import LiveActivitiesCore
import PostgresNIO
import Testing

@testable import PostgresStore

/// Bodies copied from Airship's API reference: compound operators in upper case, a list of values for a selector
/// (any of them). Accepted by `/api/push/validate` and `/api/push`, and delivered to exactly the devices they select.
@Suite struct PushAPIAirshipAudienceTests {
    static func update(audience: String, timestamp: Int) -> String {
        """
        {"audience":\(audience),"device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update",
         "name":"match","content_state":{"home":\(timestamp % 100)},"timestamp":\(timestamp)}}}}
        """
    }

    @Test func airshipsAudienceFormsReachExactlyTheirDevices() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            let setups: [(String, String)] = [
                ("c1", #","tags":["sports","language_en"]"#),
                ("c2", #","tags":["entertainment","language_en"]"#),
                ("c3", #","tags":["sports"],"named_user_id":"bob""#),
                ("c4", #","tags":["language_en"]"#),
                ("c5", #","tags":["apples"]"#),
                ("c6", #","tags":["bananas"],"tag_groups":{"tier":["gold"]}"#),
                ("c7", #","tags":["oranges"],"named_user_id":"alice""#),
                ("c8", ""),
            ]
            for (index, (name, extra)) in setups.enumerated() {
                let id = try await gw.registerChannel(e2e.app, installID: name, extra: extra)
                try await gw.track(e2e.app, channel: id, name: "match", token: hexToken(index + 1), systemID: name)
            }
            let pushes: [(String, Int)] = [
                // Airship's "Compound Selector" example, as its reference writes it.
                (#"{"AND":[{"OR":[{"tag":"sports"},{"tag":"entertainment"}]},{"tag":"language_en"}]}"#, 2),
                // Airship's implicit OR: a list of tags.
                (#"{"tag":["apples","oranges","bananas"]}"#, 3),
                (#"{"NOT":{"tag":["sports","language_en"]}}"#, 4),
                (#"{"named_user":["alice","bob"]}"#, 2),
                (#"{"tag":["gold","silver"],"group":"tier"}"#, 1),
            ]
            for (index, (audience, expected)) in pushes.enumerated() {
                let body = Self.update(audience: audience, timestamp: 1_700_000_000 + index)
                let validated = try await gw.request(.post, "/api/push/validate", json: body, auth: e2e.app.server)
                #expect(validated.status == .ok, "validate \(audience): \(validated.text)")
                let report = try await e2e.finished(try await e2e.send(body))
                let counts = report["counts"] as? [String: Int] ?? [:]
                #expect(report["state"] as? String == "done", "\(audience): \(report)")
                #expect(counts["targeted"] == expected, "\(audience): \(counts)")
                #expect(counts["accepted"] == expected, "\(audience): \(counts)")
            }
            let expected = [1: 1, 2: 1, 3: 1, 4: 0, 5: 2, 6: 3, 7: 3, 8: 1]
            for (n, count) in expected.sorted(by: { $0.key < $1.key }) {
                #expect(try await e2e.accepted(hexToken(n)) == count, "c\(n)")
            }
        }
    }

    /// A plain alert is refused saying that the gateway sends Live Activities only, naming the field to use.
    @Test func aPlainAlertIsRefusedAsNotALiveActivity() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let body = #"{"audience":{"tag":"vip"},"device_types":["ios"],"notification":{"alert":"Hello"}}"#
            for uri in ["/api/push/validate", "/api/push"] {
                let answer = try await gw.request(.post, uri, json: body, auth: app.server)
                #expect(answer.status == .badRequest, "\(uri): \(answer.text)")
                let details = answer.json["details"] as? [String: Any] ?? [:]
                #expect(details["path"] as? String == "notification.ios.live_activity", "\(uri): \(answer.text)")
                let error = answer.json["error"] as? String ?? ""
                #expect(error.contains("Live Activities only"), "\(uri): \(error)")
                #expect(error.contains("notification.alert"), "\(uri): \(error)")
            }
            let count = try await gw.database.scalar("SELECT count(*)::int FROM pushes", as: Int.self)
            #expect(count == 0)
        }
    }

    /// A stored list of named users (`{"named_user":[...]}`, as a list's audience is kept), or an audience of another
    /// kind, is never taken as surely disjoint from a named user: supersession compares the two.
    @Test func aStoredListOfNamedUsersIsNotSurelyDisjoint() async throws {
        try await withTestDatabase { database in
            let cases: [(user: String, stored: String, disjoint: Bool)] = [
                ("alice", #"{"named_user":["alice","bob"]}"#, false),
                ("carol", #"{"named_user":["alice","bob"]}"#, false),
                ("carol", #"{"named_user":"alice"}"#, true),
                ("alice", #"{"named_user":"alice"}"#, false),
                // Stored audiences of other kinds are never surely disjoint (false, not NULL).
                ("alice", #""all""#, false),
                ("alice", #"{"tag":"x","group":"device"}"#, false),
                ("alice", #"{"and":[{"tag":"x"},{"named_user":"bob"}]}"#, false),
            ]
            for (user, stored, disjoint) in cases {
                var sql = SQLBuilder()
                let column = "(\(sql.bind(stored))::jsonb)"
                let predicate = try #require(Audience.namedUser(user).surelyDisjoint(&sql, column: column))
                let rows = try await database.client.query(
                    PostgresQuery(unsafeSQL: "SELECT \(predicate)", binds: sql.binds))
                for try await value in rows.decode(Bool.self) { #expect(value == disjoint, "\(user) vs \(stored)") }
            }
        }
    }
}
