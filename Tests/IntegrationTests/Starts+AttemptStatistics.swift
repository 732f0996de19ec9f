import Foundation
import PostgresNIO
import Testing

@testable import PostgresStore

/// A generic plan made while the week's `start_attempts` partition was empty is made again once a start's record
/// finds the partition grown past its statistics (`AttemptStatisticsStatement`): the worker analyzes it, and a
/// connection that held the old plan reads the partition by index, not by a sequential scan of every attempt.
@Suite struct StartAttemptStatisticsTests {
    @Test func aPlanMadeOnTheEmptyPartitionIsMadeAgainOnceAStartFillsIt() async throws {
        try await GatewayHarness.run { gw in
            let start = try await StartChunk(gw, channels: 1)
            let appID = start.push.appID
            try await Self.run(gw.database, "ANALYZE start_attempts")
            let partition = try await gw.database.scalar(
                """
                SELECT 'start_attempts_p' || to_char(history_week(created_at) AT TIME ZONE 'UTC', 'YYYYMMDD')
                FROM pushes WHERE id = \(start.push.id)
                """, as: String.self)
            // Autovacuum kept off the partition, so that only the worker analyzes it; before any plan is made (an
            // `ALTER TABLE` makes every plan on the table again).
            try await Self.run(
                gw.database, PostgresQuery(unsafeSQL: "ALTER TABLE \(partition) SET (autovacuum_enabled = off)"))
            try await withDatabase(gw.databaseURL, maxConnections: 1) { single in
                // The push's report on a connection that keeps one generic plan, made now, on the empty partition.
                try await Self.run(single, "SET plan_cache_mode = force_generic_plan")
                let store = PostgresPushStore(database: single)
                _ = try await store.report(appID: appID, pushID: start.push.id)
                #expect(try await Self.plan(of: start, on: single).contains("Seq Scan on \(partition)"))

                // Another start's attempts fill the partition past 160 pages (12,000 of them), then this one's record.
                try await Self.fill(start, appID: appID, rows: 12000, gw.database)
                #expect(try await Self.due(start, gw.database) == [partition])
                #expect(try await start.record() != nil)
                #expect(try await Self.due(start, gw.database) == [])

                let plan = try await Self.plan(of: start, on: single)
                #expect(!plan.contains("Seq Scan on \(partition)"), "\(plan)")
                #expect(plan.contains(partition), "\(plan)")
                let analyzed = try await gw.database.scalar(
                    "SELECT relpages FROM pg_class WHERE relname = \(partition)", as: Int32.self)
                #expect(analyzed >= 160)

                // Not again as it grows: its statistics know it is past the threshold.
                try await Self.fill(start, appID: appID, rows: 24000, gw.database)
                #expect(try await Self.due(start, gw.database) == [])
            }
        }
    }

    /// A small start leaves a partition of a few pages as it is: nothing to analyze, and the worker analyzed nothing
    /// (`ANALYZE` of a partition with rows would leave `reltuples` above 0).
    @Test func aFewAttemptsAreNotAnalyzed() async throws {
        try await GatewayHarness.run { gw in
            let start = try await StartChunk(gw, channels: 2)
            try await Self.run(gw.database, "ANALYZE start_attempts")
            #expect(try await start.record() != nil)
            #expect(try await Self.due(start, gw.database) == [])
            let analyzed = try await gw.database.scalar(
                "SELECT count(*) FROM pg_class WHERE relname LIKE 'start_attempts_p%' AND reltuples > 0", as: Int64.self
            )
            #expect(analyzed == 0)
        }
    }

    /// Another start's `rows` attempts, in the partition of `start`'s push.
    static func fill(_ start: StartChunk, appID: Int64, rows: Int, _ database: Database) async throws {
        try await Self.run(
            database,
            """
            INSERT INTO start_attempts (push_id, app_id, channel_id, name, attributes_type, token, window_until,
                                        push_created_at)
            SELECT gen_random_uuid(), \(appID), gen_random_uuid(), 'other', 'GameAttributes', 'tok-' || g,
                   p.created_at + interval '1 hour', p.created_at
            FROM pushes p, generate_series(1, \(rows)) g WHERE p.id = \(start.push.id)
            """)
    }

    /// What `AttemptStatisticsStatement` answers for the start's push: the partitions due an `ANALYZE`.
    static func due(_ start: StartChunk, _ database: Database) async throws -> [String] {
        var due: [String] = []
        for try await partition in try await database.client.execute(
            AttemptStatisticsStatement(pushID: start.push.id, appID: start.push.appID), logger: database.logger)
        {
            due.append(partition)
        }
        return due
    }

    static func run(_ database: Database, _ query: PostgresQuery) async throws {
        _ = try await database.client.query(query, logger: database.logger)
    }

    /// The cached plan of the push's report on `single`'s one connection (`EXPLAIN EXECUTE` of its prepared name).
    static func plan(of start: StartChunk, on single: Database) async throws -> String {
        var lines: [String] = []
        let rows = try await single.client.query(
            PostgresQuery(
                unsafeSQL: "EXPLAIN EXECUTE \(PushReportStatement.name)('\(start.push.id)', \(start.push.appID))"),
            logger: single.logger)
        for try await line in rows.decode(String.self) { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}
