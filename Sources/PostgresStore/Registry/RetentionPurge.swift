import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// `maintenance.retention`, recurring: deletes the delivery history older than each app's retention
/// (`registry_retention`) in batches: push operations whose pushes all finished (their pushes, batches, failures,
/// counts and stamps cascade; their start attempts go first), finished schedules, launches and renewals. It also
/// scrubs forgotten channels' ids from the audiences and requests stored with pushes and schedules (one pass per
/// app for every id forgotten since the last run).
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
        let (scrubbed, deleted) = try await self.purge()
        if scrubbed + deleted > 0 {
            logger.info("retention", metadata: ["scrubbed_channels": "\(scrubbed)", "deleted_rows": "\(deleted)"])
        }
        try await Recurring.scheduleNext(kind: Self.kind, every: self.interval, after: Date(), database: self.database)
    }

    /// One pass: forgotten ids scrubbed, then old rows deleted. Returns (channels scrubbed, rows deleted).
    public func purge() async throws -> (scrubbed: Int, deleted: Int) {
        let scrubbed = try await self.scrubForgotten()
        var deleted = 0
        for statement in [Self.operations, Self.schedules, Self.launches, Self.renewals] {
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
                WHERE o.app_id = a.id AND o.created_at < now() - a.registry_retention
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
        Self.older("launches", time: "launched_at", limit: limit)
    }

    static func renewals(_ limit: Int) -> PostgresQuery {
        Self.older("renewals", time: "created_at", limit: limit)
    }

    /// Deletes up to `limit` rows of `table` (an `id` key and an `app_id`) whose `time` is past their app's
    /// retention, per app through its (app_id, time) index. The names are this file's constants, never input.
    static func older(_ table: String, time: String, where filter: String = "true", limit: Int) -> PostgresQuery {
        PostgresQuery(
            unsafeSQL: """
                WITH done AS (
                    DELETE FROM \(table) WHERE id IN (
                        SELECT x.id FROM apps a CROSS JOIN LATERAL (
                            SELECT t.id FROM \(table) t
                            WHERE t.app_id = a.id AND \(filter) AND t.\(time) < now() - a.registry_retention
                            LIMIT \(limit)) x
                        LIMIT \(limit))
                    RETURNING 1)
                SELECT count(*) FROM done
                """)
    }

    private func count(_ query: PostgresQuery) async throws -> Int {
        var count = 0
        for try await n in try await self.database.client.query(query, logger: self.database.logger).decode(Int64.self)
        {
            count = Int(n)
        }
        return count
    }
}
