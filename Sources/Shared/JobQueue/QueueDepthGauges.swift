import Foundation
import LiveActivitiesCore
import Logging
import Metrics
import PostgresDatabase
import PostgresNIO

/// `jobs_queue_depth{kind,state}` gauges, refreshed from the `jobs` table by `refresh()` (the gateway's timer), and
/// `jobs_queue_depth_refreshed_seconds`, when that last happened.
public actor QueueDepthGauges {
    let database: Database
    let metrics: any MetricsFactory
    private var seen: Set<[String]> = []

    public init(database: Database, metrics: any MetricsFactory) {
        self.database = database
        self.metrics = metrics
    }

    public func refresh() async throws {
        let rows = try await self.database.client.query(
            JobQueueStatements.Depth.query(), logger: self.database.logger)
        var current: [[String]: Int64] = [:]
        for row in try rows.elements.map(JobQueueStatements.Depth.Row.init) {
            current[[row.kind, row.state]] = row.count
        }
        for key in self.seen.union(current.keys) {
            Gauge(label: "jobs_queue_depth", dimensions: [("kind", key[0]), ("state", key[1])], factory: self.metrics)
                .record(current[key] ?? 0)
        }
        self.seen.formUnion(current.keys)
        // When the gauges were last read from PostgreSQL (a scrape shows values this old).
        Gauge(label: "jobs_queue_depth_refreshed_seconds", factory: self.metrics)
            .record(Date().timeIntervalSince1970)
    }
}
