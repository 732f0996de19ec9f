import Foundation
import PostgresNIO
import PostgresStore
import Testing

/// The delivery history is kept for the app's retention only, and a forgotten channel leaves nothing behind: its
/// failure rows and launches go with it, its id leaves stored audiences at the next retention run.
@Suite struct RegistryRetentionTests {
    static func update(_ audience: String) -> String {
        #"{"audience":\#(audience),"device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"match","content_state":{"n":1}}}}}"#
    }

    @Test func aForgottenChannelLeavesNoTokenNorIdBehind() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let gone = try await gw.registerChannel(app, installID: "gone")
            let kept = try await gw.registerChannel(app, installID: "kept")
            for channel in [gone, kept] {
                let sent = try await gw.request(
                    .post, "/api/push", json: Self.update(#"{"ios_channel":"\#(channel.uppercased())"}"#),
                    auth: app.server)
                #expect(sent.status == .accepted, "\(sent.text)")
                let when = ScheduleFiringTests.iso(Date().addingTimeInterval(3600))
                let schedule =
                    #"{"schedule":{"scheduled_time":"\#(when)"},"push":\#(Self.update(#"{"ios_channel":"\#(channel)"}"#))}"#
                #expect(
                    try await gw.request(.post, "/api/schedules", json: schedule, auth: app.server).status == .created)
            }
            _ = try await gw.database.client.query(
                """
                INSERT INTO push_failures (push_id, app_id, channel_id, token, status, reason, push_created_at)
                SELECT p.id, p.app_id, c.id, \(hexToken(7)), 410, 'Unregistered', p.created_at FROM pushes p, channels c
                """)
            #expect(try await gw.request(.delete, "/api/channels/\(gone)", auth: app.device).status == .ok)
            #expect(
                try await gw.database.scalar(
                    "SELECT count(*) FROM push_failures WHERE token = \(hexToken(7))", as: Int64.self)
                    == 2)  // the kept channel's, one per push
            let (scrubbed, _) = try await RetentionPurge(database: gw.database).purge()
            #expect(scrubbed == 1)
            let mentions = """
                SELECT (SELECT count(*) FROM pushes WHERE audience::text ILIKE $1 OR request::text ILIKE $1)
                     + (SELECT count(*) FROM schedules WHERE push::text ILIKE $1)
                """
            func count(_ id: String) async throws -> Int64 {
                var binds = PostgresBindings()
                binds.append("%\(id)%")
                return try await gw.database.scalar(PostgresQuery(unsafeSQL: mentions, binds: binds), as: Int64.self)
            }
            #expect(try await count(gone) == 0)
            #expect(try await count(kept) == 2)
            #expect(try await gw.database.scalar("SELECT count(*) FROM forgotten_channels", as: Int64.self) == 0)
        }
    }

    @Test func historyOlderThanTheRetentionIsDeleted() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channel = try await gw.registerChannel(app, installID: "old")
            for _ in 0..<3 {
                _ = try await gw.request(.post, "/api/push", json: Self.update(#""all""#), auth: app.server)
            }
            _ = try await gw.database.client.query("UPDATE pushes SET state = 'done', finished_at = now()")
            _ = try await gw.database.client.query(
                "INSERT INTO launches (app_id, channel_id, system_activity_id) SELECT app_id, id, 'A' FROM channels")
            _ = try await gw.request(.post, "/api/push", json: Self.update(#""all""#), auth: app.server)  // queued
            _ = try await gw.database.client.query(
                "INSERT INTO start_attempts (push_id, app_id, channel_id, name, attributes_type, token, window_until, push_created_at) SELECT id, app_id, \(UUID(uuidString: channel)!), 'match', 'A', \(hexToken(1)), now(), created_at FROM pushes WHERE state = 'done'"
            )
            let policy = try await gw.request(
                .put, "/admin/apps/\(app.key)/policies", json: #"{"retention_seconds":1}"#, auth: gw.admin)
            #expect(policy.status == .ok)
            // Another app keeps the default 30 days: the weekly partitions are dropped past that horizon, and the
            // rows of an app with a shorter retention are deleted one by one.
            let keeper = try await gw.createApp()
            let keeperChannel = try await gw.registerChannel(keeper, installID: "keeper")
            // Its launches: one just past the horizon, in the week its next drop takes (left to that drop), one a
            // week older (a week that was not dropped: deleted here).
            _ = try await gw.database.client.query("SELECT history_partitions_ensure(now() - interval '40 days', 1)")
            _ = try await gw.database.client.query(
                """
                INSERT INTO launches (app_id, channel_id, system_activity_id, launched_at)
                SELECT app_id, id, 'in-the-week', greatest(history_week(now() - interval '30 days'),
                                                           now() - interval '30 days 1 minute')
                FROM channels WHERE id = \(UUID(uuidString: keeperChannel)!)
                UNION ALL
                SELECT app_id, id, 'older', history_week(now() - interval '30 days') - interval '1 day'
                FROM channels WHERE id = \(UUID(uuidString: keeperChannel)!)
                """)
            try await Task.sleep(for: .seconds(1.2))  // the rows' age past the 1 s retention is the premise
            let (_, deleted) = try await RetentionPurge(database: gw.database, batchSize: 2).purge()
            #expect(deleted == 5)  // three operations, two launches
            #expect(try await gw.database.scalar("SELECT count(*) FROM pushes", as: Int64.self) == 1)
            #expect(try await gw.database.scalar("SELECT count(*) FROM start_attempts", as: Int64.self) == 0)
            let left = try await gw.database.client.query("SELECT system_activity_id FROM launches").collect()
                .map { try $0.decode(String.self) }
            #expect(left == ["in-the-week"])
        }
    }
}
