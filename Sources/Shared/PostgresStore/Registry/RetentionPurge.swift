import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// `maintenance.retention`, recurring: rotates the delivery history's weekly partitions (`rotatePartitions`: the
/// weeks past the longest retention of any app are dropped whole), then deletes in batches what the drop does not
/// take (`beforeRetention`): push operations whose pushes all finished (their pushes, batches, failures, counts and
/// stamps cascade; their start attempts go first), finished schedules, launches, renewals and the stored answers of
/// the device calls that create (`device_operations`). It also scrubs
/// forgotten channels' ids from the audiences and requests stored with pushes and schedules (one pass per app for
/// every id forgotten since the last run).
public struct RetentionPurge: JobHandler {
    public static let kind = JobKind.retention

    let database: Database
    let interval: Duration
    let batchSize: Int

    public init(database: Database, interval: Duration = .seconds(600), batchSize: Int = 1_000) {
        self.database = database
        self.interval = interval
        self.batchSize = batchSize
    }

    public func run(_ job: ClaimedJob, logger: Logger) async throws {
        var weeks = (made: 0, dropped: 0)
        do {
            weeks = try await self.rotatePartitions()
        } catch {
            // A lock not granted within its timeout (a long report on the table): the next run tries again.
            logger.warning("retention: partitions not rotated", metadata: ["error": "\(String(reflecting: error))"])
        }
        let (scrubbed, deleted) = try await self.purge()
        if scrubbed + deleted + weeks.made + weeks.dropped > 0 {
            logger.info(
                "retention",
                metadata: [
                    "scrubbed_channels": "\(scrubbed)", "deleted_rows": "\(deleted)",
                    "partitions_made": "\(weeks.made)", "weeks_dropped": "\(weeks.dropped)",
                ])
        }
        try await Recurring.scheduleNext(kind: Self.kind, every: self.interval, after: Date(), database: self.database)
    }

    /// The delivery history's weekly partitions (sql/0022): the next `weeksAhead` weeks made, and the weeks wholly
    /// older than the longest retention of any app dropped (detached, then dropped: no row is deleted one by one).
    /// The locks each DDL statement takes wait at most `lockTimeout`. Returns (partitions made, weeks dropped).
    public func rotatePartitions(weeksAhead: Int = 3, lockTimeout: Duration = .seconds(5)) async throws
        -> (made: Int, dropped: Int)
    {
        try await self.database.transaction { connection in
            let milliseconds = lockTimeout.components.seconds * 1000
            try await connection.query(
                PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = \(milliseconds)"), logger: self.database.logger)
            let rows = try await connection.query(
                """
                SELECT history_partitions_ensure(now(), \(Int32(weeksAhead)))::int8,
                       history_partitions_drop(\(unescaped: Self.horizon))::int8
                """, logger: self.database.logger)
            var result = (made: 0, dropped: 0)
            for try await (made, dropped) in rows.decode((Int64, Int64).self) {
                result = (Int(made), Int(dropped))
            }
            return result
        }
    }

    /// One pass: forgotten ids scrubbed, then old rows deleted. Returns (channels scrubbed, rows deleted).
    public func purge() async throws -> (scrubbed: Int, deleted: Int) {
        let scrubbed = try await self.scrubForgotten()
        var deleted = 0
        for statement in [Self.operations, Self.schedules, Self.launches, Self.renewals, Self.deviceOperations] {
            while true {
                let count = try await self.count(statement(self.batchSize))
                deleted += count
                if count < self.batchSize { break }
            }
        }
        return (scrubbed, deleted)
    }

    /// The ids of channels forgotten so far, replaced by the nil UUID in the app's stored pushes and schedules.
    func scrubForgotten() async throws -> Int {
        try await self.database.transaction { connection in
            let rows = try await connection.query(
                """
                WITH gone AS (DELETE FROM forgotten_channels RETURNING app_id, channel_id::text AS id),
                apps AS (SELECT app_id, '(' || string_agg(id, '|') || ')' AS pattern, count(*) AS n
                         FROM gone GROUP BY app_id),
                p AS (
                    UPDATE pushes p SET audience = regexp_replace(p.audience::text, a.pattern, \(Self.nilID), 'gi')::jsonb,
                                        request = regexp_replace(p.request::text, a.pattern, \(Self.nilID), 'gi')::jsonb
                    FROM apps a
                    WHERE p.app_id = a.app_id AND (p.audience::text ~* a.pattern OR p.request::text ~* a.pattern)
                ),
                s AS (
                    UPDATE schedules s SET push = regexp_replace(s.push::text, a.pattern, \(Self.nilID), 'gi')::jsonb
                    FROM apps a WHERE s.app_id = a.app_id AND s.push::text ~* a.pattern
                )
                SELECT coalesce(sum(n), 0)::int8 FROM apps
                """, logger: self.database.logger)
            var count = 0
            for try await n in rows.decode(Int64.self) { count = Int(n) }
            return count
        }
    }

    static let nilID = "00000000-0000-0000-0000-000000000000"

    static func operations(_ limit: Int) -> PostgresQuery {
        """
        WITH old AS (
            SELECT o.id FROM apps a
            CROSS JOIN LATERAL (
                SELECT o.id FROM push_operations o
                WHERE o.app_id = a.id AND \(unescaped: Self.beforeRetention("o.created_at"))
                  AND NOT EXISTS (SELECT 1 FROM pushes p WHERE p.operation_id = o.id
                                  AND p.state IN ('queued', 'sending'))
                LIMIT \(limit)
            ) o
            LIMIT \(limit)
        ),
        attempts AS (
            DELETE FROM start_attempts s USING pushes p
            WHERE p.operation_id IN (SELECT id FROM old) AND s.push_id = p.id
        ),
        done AS (DELETE FROM push_operations WHERE id IN (SELECT id FROM old) RETURNING 1)
        SELECT count(*) FROM done
        """
    }

    static func schedules(_ limit: Int) -> PostgresQuery {
        Self.older("schedules", time: "updated_at", where: "t.state <> 'pending'", limit: limit)
    }

    static func launches(_ limit: Int) -> PostgresQuery {
        Self.older("launches", time: "launched_at", partitioned: true, limit: limit)
    }

    /// Stored answers of the device calls that create (`Idempotency-Key`), aged out like push operations.
    static func deviceOperations(_ limit: Int) -> PostgresQuery {
        Self.older("device_operations", time: "created_at", limit: limit)
    }

    static func renewals(_ limit: Int) -> PostgresQuery {
        Self.older("renewals", time: "created_at", limit: limit)
    }

    /// Deletes up to `limit` rows of `table` (an `id` key and an `app_id`) whose `time` is past their app's
    /// retention, per app through its (app_id, time) index. The names are this file's constants, never input.
    static func older(
        _ table: String, time: String, where filter: String = "true", partitioned: Bool = false, limit: Int
    ) -> PostgresQuery {
        let before = partitioned ? Self.beforeRetention("t.\(time)") : "t.\(time) < now() - a.registry_retention"
        return PostgresQuery(
            unsafeSQL: """
                WITH done AS (
                    DELETE FROM \(table) WHERE id IN (
                        SELECT x.id FROM apps a CROSS JOIN LATERAL (
                            SELECT t.id FROM \(table) t
                            WHERE t.app_id = a.id AND \(filter) AND \(before)
                            LIMIT \(limit)) x
                        LIMIT \(limit))
                    RETURNING 1)
                SELECT count(*) FROM done
                """)
    }

    /// Rows of app `a` past its retention, except those the next week's partition drop takes: a partitioned row
    /// (sql/0022) older than the longest retention of any app, in the week that holds that horizon, waits for its
    /// week to be dropped whole (at most a week) rather than being deleted one by one. Older rows (a week held back
    /// by an unfinished push, the default partitions) and those of apps with a shorter retention are deleted here.
    static func beforeRetention(_ time: String) -> String {
        """
        (\(time) < least(now() - a.registry_retention, history_week(\(Self.horizon)))
         OR (\(time) >= \(Self.horizon) AND \(time) < now() - a.registry_retention))
        """
    }

    /// The longest retention of any app, as a point in time: the weeks wholly before it are dropped.
    static let horizon = "now() - (SELECT coalesce(max(registry_retention), interval '30 days') FROM apps)"

    private func count(_ query: PostgresQuery) async throws -> Int {
        var count = 0
        for try await n in try await self.database.client.query(query, logger: self.database.logger).decode(Int64.self)
        {
            count = Int(n)
        }
        return count
    }
}
