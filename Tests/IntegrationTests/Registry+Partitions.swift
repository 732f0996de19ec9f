import Foundation
import PostgresNIO
import PostgresStore
import Testing

/// The delivery history is partitioned by week (sql/0022): every view reads it, and retention drops a week's
/// partitions, rows of this week untouched.
@Suite struct PartitionedHistoryTests {
    static let tables = [
        "pushes", "push_batches", "push_failure_counts", "push_failures", "start_attempts", "launches",
    ]

    @Test func everyViewReadsThePartitionedHistoryAndRetentionDropsOldWeeks() async throws {
        try await GatewayHarness.run { gw in
            let db = gw.database
            for table in Self.tables {
                let kind = try await db.scalar(
                    "SELECT relkind::text FROM pg_class WHERE relname = \(table)", as: String.self)
                #expect(kind == "p", "\(table) is partitioned")
            }
            let app = try await gw.createApp()
            let channel = try await gw.registerChannel(app, installID: "weeks")
            try await gw.track(app, channel: channel, name: "match", token: hexToken(1), systemID: "A")
            let update =
                #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"match","content_state":{"n":1}}}}}"#
            #expect(try await gw.request(.post, "/api/push", json: update, auth: app.server).status == .accepted)

            // Five weeks ago: a finished start with a batch, a failure, an attempt, and a tap.
            // The weeks are made first: a partition cannot be created by the statement that inserts into it.
            _ = try await db.client.query("SELECT history_partitions_ensure(now() - interval '35 days', 3)")
            _ = try await db.client.query(
                """
                WITH op AS (INSERT INTO push_operations (app_id, response, created_at)
                       SELECT id, '{}', now() - interval '35 days' FROM apps RETURNING id, app_id, created_at),
                p AS (INSERT INTO pushes (app_id, operation_id, event, activity_name, audience, request, apns_payload,
                                         apns_timestamp, apns_priority, state, targeted, created_at, finished_at)
                      SELECT app_id, id, 'start', 'match', '"all"', '{}', '\\x7b7d', 1, 10, 'done', 1, created_at,
                             created_at FROM op RETURNING id, app_id, created_at),
                b AS (INSERT INTO push_batches (push_id, seq, targets, state, push_created_at, app_id)
                      SELECT id, 0, 1, 'done', created_at, app_id FROM p),
                c AS (INSERT INTO push_failure_counts (push_id, reason, count, push_created_at, app_id)
                      SELECT id, 'Unregistered', 1, created_at, app_id FROM p),
                f AS (INSERT INTO push_failures (push_id, app_id, channel_id, token, status, reason, push_created_at)
                      SELECT id, app_id, \(UUID(uuidString: channel)!), \(hexToken(2)), 410, 'Unregistered', created_at
                      FROM p),
                s AS (INSERT INTO start_attempts (push_id, app_id, channel_id, name, attributes_type, token,
                                                  window_until, push_created_at)
                      SELECT id, app_id, \(UUID(uuidString: channel)!), 'match', 'A', \(hexToken(2)),
                             created_at + interval '5 minutes', created_at FROM p)
                INSERT INTO launches (app_id, channel_id, system_activity_id, push_id, launched_at)
                SELECT app_id, \(UUID(uuidString: channel)!), 'A', id, created_at FROM p
                """)
            let views = try await db.client.query(
                "SELECT table_name::text FROM information_schema.views WHERE table_schema = current_schema()"
            ).collect().map { try $0.decode(String.self) }
            #expect(views.count >= 10)
            for view in views {
                do {
                    _ = try await db.client.query(PostgresQuery(unsafeSQL: "SELECT * FROM \(view)")).collect()
                } catch {
                    Issue.record("\(view): \(String(reflecting: error))")
                }
            }
            #expect(try await db.scalar("SELECT count(*) FROM push_report", as: Int64.self) == 2)
            #expect(try await db.scalar("SELECT count(*) FROM start_report", as: Int64.self) >= 1)
            #expect(
                try await db.scalar(
                    "SELECT count(*) FROM pushes_default", as: Int64.self) == 0, "every row found its week")

            let (_, dropped) = try await RetentionPurge(database: db).rotatePartitions()
            #expect(dropped >= 1)
            for table in Self.tables {
                let count = try await db.scalar(
                    PostgresQuery(
                        unsafeSQL:
                            "SELECT count(*) FROM \(table) WHERE \(Self.timeColumn(table)) < now() - interval '30 days'"
                    ),
                    as: Int64.self)
                #expect(count == 0, "\(table): the old week is gone")
            }
            #expect(try await db.scalar("SELECT count(*) FROM push_report", as: Int64.self) == 1)
            let thisWeek = try await db.scalar(
                "SELECT count(*) FROM pg_class WHERE relname = 'pushes_p' || to_char(history_week(now()) AT TIME ZONE 'UTC', 'YYYYMMDD')",
                as: Int64.self)
            #expect(thisWeek == 1)
        }
    }

    static func timeColumn(_ table: String) -> String {
        switch table {
        case "pushes": "created_at"
        case "launches": "launched_at"
        default: "push_created_at"
        }
    }
}
