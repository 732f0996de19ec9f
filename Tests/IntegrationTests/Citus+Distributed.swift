import Foundation
import PostgresNIO
import Testing

/// The schema distributed by app on Citus (docs/scaling.md, "Sharding by app on Citus"), against a real coordinator
/// and two worker nodes: `CITUS_URL` names a database on the coordinator. Without it the suite is skipped.
@Suite(
    .serialized,
    .enabled(if: CitusDatabase.isConfigured, "CITUS_URL is not set (a Citus coordinator: docs/scaling.md)"))
struct CitusDistributedTests {
    /// `apps` on every node, `jobs` and `activity_contracts` on the coordinator, every other table spread by
    /// `app_id` over the workers, all colocated.
    @Test func theSchemaDistributesByApp() async throws {
        let url = try await CitusDatabase.prepare()
        try await withDatabase(url) { database in
            let spread = try await database.scalar(
                """
                SELECT string_agg(
                           logicalrelid::text || ':' || partmethod::text || ':'
                               || coalesce(column_to_column_name(logicalrelid, partkey), '-'),
                           ' ' ORDER BY logicalrelid::text)
                FROM pg_dist_partition
                WHERE logicalrelid::text
                      IN ('apps', 'jobs', 'activity_contracts', 'channels', 'pushes', 'live_activities')
                """, as: String.self)
            #expect(
                spread
                    == "activity_contracts:n:- apps:n:- channels:h:app_id live_activities:h:app_id pushes:h:app_id")
            let colocations = try await database.scalar(
                "SELECT count(DISTINCT colocationid) FROM pg_dist_partition WHERE partmethod = 'h'", as: Int64.self)
            #expect(colocations == 1)
            let tenantTables = try await database.scalar(
                """
                SELECT count(*) FROM pg_class c
                WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
                  AND c.relname NOT IN ('apps', 'jobs', 'schema_migrations', 'activity_contracts')
                  AND NOT EXISTS (SELECT FROM pg_dist_partition p WHERE p.logicalrelid = c.oid AND p.partmethod = 'h')
                """, as: Int64.self)
            #expect(tenantTables == 0, "tenant tables left undistributed")
            let nodes = try await database.scalar(
                "SELECT count(DISTINCT nodeport) FROM citus_shards WHERE table_name = 'live_activities'::regclass",
                as: Int64.self)
            #expect(nodes == 2)
        }
    }

    /// The gateway and two real workers on the distributed schema: channels registered and activities tracked
    /// through the device API, more seeded, one update fanned out to all of them through the APNs simulator, each
    /// target accepted exactly once.
    @Test func aFanOutReachesEveryTargetOnce() async throws {
        let url = try await CitusDatabase.prepare()
        let environment = ["PUSH_BATCH_SIZE": "500", "PUSH_CHUNK_SIZE": "100"]
        try await EndToEndHarness.run(workers: 2, environment: environment, databaseURL: url) { e2e in
            let gw = e2e.gateway
            let seeded = 2000
            try await gw.seedActivities(appKey: e2e.app.key, count: seeded)
            var tracked: [String] = []
            for n in 1...3 {
                let channel = try await gw.registerChannel(e2e.app, installID: "device-\(n)")
                let token = hexToken(100_000 + n)
                let answer = try await gw.track(
                    e2e.app, channel: channel, name: "match", token: token, systemID: "A\(n)",
                    attributesType: "MatchAttributes")
                #expect(answer.status.code < 300, "track: \(answer.status) \(answer.text)")
                tracked.append(token)
            }
            let id = try await e2e.send(PushDeliveryFailureTests.update(1_700_000_001))
            let report = try await e2e.finished(id, timeout: .seconds(120))
            #expect(report["state"] as? String == "done", "\(report)")
            #expect((report["counts"] as? [String: Int])?["accepted"] == seeded + tracked.count, "\(report)")

            let byToken = try await e2e.acceptedByToken()
            let expected = (1...seeded).map { hexToken($0) } + tracked
            #expect(expected.filter { byToken[$0] != 1 }.isEmpty, "targets not accepted exactly once")
            #expect(byToken.count == expected.count, "\(byToken.count) tokens seen, \(expected.count) targeted")
        }
    }
}
