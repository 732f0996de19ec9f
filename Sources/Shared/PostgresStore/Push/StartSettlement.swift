import Foundation
import LiveActivitiesCore
import Logging
import Metrics
import PostgresNIO

/// `maintenance.start_settle`, recurring: a start push whose confirmation window closed (the app's
/// `start_confirm_window` after the push finished; no attempt's own window ends later) gets its final counts written
/// on its row, `starts_started` and `starts_not_started` (accepted, not started), once: the report reads them from
/// there instead of counting, and `worker_starts_total{outcome}` counts them here, exactly once per push.
public struct StartSettlement: RecurringJob {
    public static let kind = JobKind.settleStarts
    public static let metric = "worker_starts_total"

    let database: Database
    let metrics: any MetricsFactory
    public let interval: Duration
    let limit: Int
    public var queue: Database { self.database }

    public init(
        database: Database, metrics: any MetricsFactory, interval: Duration = .seconds(30), limit: Int = 100
    ) {
        self.database = database
        self.metrics = metrics
        self.interval = interval
        self.limit = limit
    }

    public func run(_ job: ClaimedJob, logger: Logger) async throws {
        while try await self.settle() == self.limit {}
        try await self.scheduleNext()
    }

    /// One pass over up to `limit` pushes; returns how many it settled.
    @discardableResult
    public func settle() async throws -> Int {
        let rows = try await self.database.client.query(
            """
            WITH due AS (
                SELECT p.id FROM pushes p JOIN apps a ON a.id = p.app_id
                WHERE p.event = 'start' AND p.starts_settled_at IS NULL AND p.finished_at IS NOT NULL
                  AND p.finished_at + a.start_confirm_window <= now()
                ORDER BY p.finished_at LIMIT \(self.limit)
                FOR UPDATE OF p SKIP LOCKED
            ),
            counts AS (
                SELECT d.id,
                       (SELECT count(*) FROM start_attempts s WHERE s.push_id = d.id AND s.outcome = 'started')
                           AS started,
                       (SELECT coalesce(sum(b.accepted), 0)::int8 FROM push_batches b WHERE b.push_id = d.id)
                           AS accepted
                FROM due d
            )
            UPDATE pushes p
            SET starts_started = c.started, starts_not_started = greatest(c.accepted - c.started, 0),
                starts_settled_at = now()
            FROM counts c
            WHERE p.id = c.id
            RETURNING p.starts_started, p.starts_not_started
            """, logger: self.database.logger)
        var settled = 0
        var started: Int64 = 0
        var notStarted: Int64 = 0
        for try await (s, n) in rows.decode((Int64, Int64).self) {
            settled += 1
            started += s
            notStarted += n
        }
        let counter = { Counter(label: Self.metric, dimensions: [("outcome", $0)], factory: self.metrics) }
        if settled > 0 {
            counter("started").increment(by: Int(started))
            counter("not_started").increment(by: Int(notStarted))
        }
        return settled
    }
}
