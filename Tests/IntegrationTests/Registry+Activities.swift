import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct RegistryActivityTests {
    @Test func rotationReplacementUntrackAndReconcile() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channel = try await gw.registerChannel(app, installID: "device-1")

            let first = try await gw.track(
                app, channel: channel, name: "chest_timer_0", token: hexToken(1), systemID: "A")
            #expect(first.status == .created)
            #expect(first.json["result"] as? String == "started")
            #expect(try await gw.targetedTokens(name: "chest_timer_0") == [hexToken(1)])

            // A retry changes nothing; a new token for the same activity is a rotation.
            let retry = try await gw.track(
                app, channel: channel, name: "chest_timer_0", token: hexToken(1), systemID: "A")
            #expect(retry.status == .ok)
            #expect(retry.json["result"] as? String == "unchanged")
            let rotated = try await gw.track(
                app, channel: channel, name: "chest_timer_0", token: hexToken(2).uppercased(), systemID: "A")
            #expect(rotated.json["result"] as? String == "rotated")
            #expect(try await gw.targetedTokens(name: "chest_timer_0") == [hexToken(2)])

            // A new system activity id under the same name ends the old instance.
            let replaced = try await gw.track(
                app, channel: channel, name: "chest_timer_0", token: hexToken(3), systemID: "B")
            #expect(replaced.status == .created)
            #expect(replaced.json["result"] as? String == "replaced")
            #expect(try await gw.targetedTokens(name: "chest_timer_0") == [hexToken(3)])
            let ended = try await gw.database.scalar(
                "SELECT ended_reason FROM live_activities WHERE system_activity_id = 'A'", as: String.self)
            #expect(ended == "replaced")

            // A late retry for the ended activity is refused and changes nothing.
            let late = try await gw.track(
                app, channel: channel, name: "chest_timer_0", token: hexToken(2), systemID: "A")
            #expect(late.status == .conflict)
            #expect((late.json["details"] as? [String: String])?["path"] == "system_activity_id")
            #expect(try await gw.targetedTokens(name: "chest_timer_0") == [hexToken(3)])

            // Names are independent; reconcile ends exactly the instances the app no longer has.
            try await gw.track(app, channel: channel, name: "chest_timer_1", token: hexToken(4), systemID: "C")
            try await gw.track(app, channel: channel, name: "match", token: hexToken(5), systemID: "D")
            let reconcile = try await gw.request(
                .post, "/api/channels/\(channel)/live-activities/reconcile",
                json: #"{"system_activity_ids":["B","D"]}"#,
                auth: app.device)
            #expect(reconcile.json["ended"] as? Int == 1)
            #expect(try await gw.targetedTokens(name: "chest_timer_1").isEmpty)
            #expect(try await gw.targetedTokens(name: "match") == [hexToken(5)])

            // Untrack ends the instance; a repeat ends nothing and still succeeds.
            let path = "/api/channels/\(channel)/live-activities/match"
            #expect(try await gw.request(.delete, path, auth: app.device).json["ended"] as? Int == 1)
            let again = try await gw.request(.delete, path, auth: app.device)
            #expect(again.status == .ok)
            #expect(again.json["ended"] as? Int == 0)
            #expect(try await gw.targetedTokens(name: "match").isEmpty)

            // The lookup shows current instances, never tokens.
            let lookup = try await gw.request(.get, "/api/channels/\(channel)", auth: app.server)
            let shown = try #require((lookup.json["channel"] as? [String: Any])?["live_activities"] as? [[String: Any]])
            #expect(shown.map { $0["name"] as? String } == ["chest_timer_0"])
            #expect(shown.first?["system_activity_id"] as? String == "B")
            #expect(!lookup.text.contains(hexToken(3)))
        }
    }

    @Test func invalidatedTokensComeBackOnlyWithANewRegistration() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channel = try await gw.registerChannel(app, installID: "device-1")
            try await gw.track(app, channel: channel, name: "match", token: hexToken(1), systemID: "A")
            _ = try await gw.database.scalar(
                """
                WITH u AS (UPDATE live_activities SET state = 'invalid', invalid_reason = 'Unregistered',
                           invalidated_at = now() RETURNING 1) SELECT count(*) FROM u
                """, as: Int64.self)
            #expect(try await gw.targetedTokens(name: "match").isEmpty)
            let again = try await gw.track(app, channel: channel, name: "match", token: hexToken(1), systemID: "A")
            #expect(again.json["result"] as? String == "rotated")
            #expect(try await gw.targetedTokens(name: "match") == [hexToken(1)])
        }
    }

    @Test func instancesPastTheMaximumAgeAreNotTargetedAndArePurgedAfterRetention() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channel = try await gw.registerChannel(app, installID: "device-1")
            try await gw.track(app, channel: channel, name: "old", token: hexToken(1), systemID: "A")
            try await gw.track(app, channel: channel, name: "new", token: hexToken(2), systemID: "B")
            try await gw.track(app, channel: channel, name: "gone", token: hexToken(3), systemID: "C")
            _ = try await gw.request(.delete, "/api/channels/\(channel)/live-activities/gone", auth: app.device)
            _ = try await gw.database.scalar(
                """
                WITH a AS (UPDATE live_activities SET started_at = now() - interval '9 hours' WHERE name = 'old'
                           RETURNING 1),
                     b AS (UPDATE live_activities SET ended_at = now() - interval '31 days' WHERE name = 'gone'
                           RETURNING 1)
                SELECT (SELECT count(*) FROM a) + (SELECT count(*) FROM b)
                """, as: Int64.self)
            #expect(try await gw.targetedTokens(name: "old").isEmpty)
            #expect(try await gw.targetedTokens(name: "new") == [hexToken(2)])

            let report = try await RegistryPurge(database: gw.database).purge()
            #expect(report == .init(expired: 1, deletedActivities: 1, deletedPushToStartTokens: 0))
            let states = try await gw.database.scalar(
                "SELECT string_agg(name || '=' || state, ',' ORDER BY name) FROM live_activities", as: String.self)
            #expect(states == "new=active,old=expired")
        }
    }

    @Test func concurrentCallsForOneChannelAllSucceedAndLeaveOneCurrentInstance() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channel = try #require(UUID(uuidString: try await gw.registerChannel(app, installID: "device-1")))
            let appID = try await gw.database.scalar("SELECT app_id FROM channels", as: Int64.self)
            // Straight to the store, on many pool connections at once (the test client has one connection).
            let store = PostgresActivityStore(database: gw.database)
            let results = try await withThrowingTaskGroup(of: String.self) { group in
                for n in 0..<24 {
                    group.addTask {
                        let tracking = ActivityTracking(
                            attributesType: "Match", token: hexToken(n), systemActivityID: "S\(n % 3)")
                        do {
                            return try await store.track(appID: appID, channelID: channel, name: "match", tracking)
                                .result
                        } catch RegistryError.activityEnded {
                            return "refused"
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(results.contains("started"), "\(results)")
            let current = try await gw.database.scalar(
                "SELECT count(*) FROM live_activities WHERE state IN ('active', 'invalid')", as: Int64.self)
            #expect(current == 1)
        }
    }
}
