import Foundation
import PostgresStore
import Prometheus
import Testing

extension CitusDistributedTests {
    static func policies(confirmSeconds: Int) -> String {
        """
        {"start_confirm_seconds":\(confirmSeconds),"idle_end":[{"idle_seconds":600,"dismissal_seconds":0}],
         "renew":[{"attributes_type":"MatchAttributes","after_seconds":1,"alert":{"title":"Still on","body":"More"}}]}
        """
    }

    /// One app's whole life on the distributed schema, with every recurring job's pass run here (the worker's own
    /// runs are taken off the queue) so that a statement Citus refuses fails the test: push-to-start tokens
    /// registered, a start confirmed by the devices' track calls, an update in batches (its stamps deferred and
    /// folded), the starts settled, an idle activity ended, an old one renewed (an end and a push-to-start), the
    /// registry purged, the history's retention, and a channel forgotten with its start attempts.
    @Test func aWholeLifecycleAndEveryMaintenancePassRunOnCitus() async throws {
        let url = try await CitusDatabase.prepare()
        let environment = ["PUSH_BATCH_SIZE": "2", "PUSH_CHUNK_SIZE": "1"]
        try await EndToEndHarness.run(workers: 1, environment: environment, databaseURL: url) { e2e in
            let gw = e2e.gateway
            let db = gw.database
            let policy = try await gw.request(
                .put, "/admin/apps/\(e2e.app.key)/policies", json: Self.policies(confirmSeconds: 120), auth: gw.admin)
            #expect(policy.status == .ok, "\(policy.text)")
            _ = try await db.client.query(
                "DELETE FROM jobs WHERE kind LIKE 'maintenance.%' OR kind = 'delivery.fold_stamps'",
                logger: db.logger)

            // Push-to-start registration, a start to the four channels, three confirmed by their track calls.
            let channels = try await gw.registerStarters(e2e.app, count: 4)
            let start = try await e2e.send(StartConfirmationTests.start(name: "game"))
            let started = try await e2e.finished(start)
            #expect((started["counts"] as? [String: Int])?["accepted"] == 4, "\(started)")
            for (n, channel) in channels.prefix(3).enumerated() {
                let tracked = try await gw.track(
                    e2e.app, channel: channel, name: "game", token: hexToken(300 + n), systemID: "g-\(n)",
                    attributesType: "MatchAttributes")
                #expect(tracked.status == .created, "\(tracked.text)")
            }
            #expect(StartConfirmationTests.starts(try await e2e.finished(start))["started"] == 3)

            // An update in batches of two: its stamps are deferred, then folded.
            let update = try await e2e.finished(
                try await e2e.send(
                    #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"game","content_state":{"s":1}}}}}"#
                ))
            #expect((update["counts"] as? [String: Int])?["accepted"] == 3, "\(update)")
            let ledger = DeliveryLedger(database: db)
            _ = try await ledger.foldPendingStamps()
            _ = try await ledger.foldStampsOfAppsWithPolicies()
            #expect(try await db.scalar("SELECT count(*) FROM delivery_stamps", as: Int64.self) == 0)

            // The starts settle once their window is over: shortened to a second now that the devices registered.
            let shorter = try await gw.request(
                .put, "/admin/apps/\(e2e.app.key)/policies", json: Self.policies(confirmSeconds: 1), auth: gw.admin)
            #expect(shorter.status == .ok, "\(shorter.text)")
            let settlement = StartSettlement(
                database: db, metrics: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()))
            let settled = try await until("the start settled", timeout: .seconds(20)) {
                let n = try await settlement.settle()
                return n > 0 ? n : nil
            }
            #expect(settled == 1)

            // One seeded activity idle for 20 minutes is ended; the started ones (updated just now) are not.
            try await gw.seedActivities(appKey: e2e.app.key, count: 1, name: "chest")
            _ = try await db.scalar(
                """
                WITH u AS (UPDATE live_activities SET started_at = now() - interval '20 minutes'
                           WHERE name = 'chest' RETURNING 1)
                SELECT count(*) FROM u
                """, as: Int64.self)
            #expect(try await IdleActivityEnder(database: db).endIdle(now: Date()) == 1)

            // The three started activities, older than the renewal policy's second, are renewed.
            let renewed = try await until("three renewed", timeout: .seconds(20)) {
                _ = try await ActivityRenewer(database: db).renew(now: Date())
                let n = try await db.scalar("SELECT count(*) FROM renewals", as: Int64.self)
                return n == 3 ? n : nil
            }
            #expect(renewed == 3)

            // Every push the jobs made (the idle end, the renewals' ends and starts) is delivered.
            _ = try await until("the jobs' pushes done", timeout: .seconds(60)) {
                try await db.scalar("SELECT count(*) FROM pushes WHERE state <> 'done'", as: Int64.self) == 0
                    ? true : nil
            }
            #expect(try await db.scalar("SELECT count(*) FROM pushes", as: Int64.self) == 9)

            // A forgotten channel takes its start attempts with it.
            let forget = try await gw.request(.delete, "/api/channels/\(channels[0])", auth: e2e.app.device)
            #expect(forget.status == .ok, "\(forget.text)")
            let attempts = try await db.scalar(
                "SELECT count(*) FROM start_attempts WHERE channel_id = \(UUID(uuidString: channels[0])!)",
                as: Int64.self)
            #expect(attempts == 0)

            // The registry's and the history's maintenance (the forgotten channel's id scrubbed).
            _ = try await RegistryPurge(database: db).purge()
            let retention = RetentionPurge(database: db)
            _ = try await retention.rotatePartitions()
            #expect(try await retention.purge().scrubbed == 1)

            let dead = try await db.scalar(
                "SELECT coalesce(string_agg(kind || ': ' || coalesce(last_error, ''), E'\\n'), '') FROM jobs WHERE state = 'dead'",
                as: String.self)
            #expect(dead.isEmpty, "\(dead)")
        }
    }
}
