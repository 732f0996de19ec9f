import LiveActivitiesCore
import Logging
import Metrics
import PostgresNIO

/// `jobs_queue_depth{kind,state}` gauges, refreshed from the `jobs` table when metrics are scraped.
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
            "SELECT kind, state, count(*) FROM jobs GROUP BY kind, state",
            logger: self.database.logger
        )
        var current: [[String]: Int64] = [:]
        for try await (kind, state, count) in rows.decode((String, String, Int64).self) {
            current[[kind, state]] = count
        }
        for key in self.seen.union(current.keys) {
            Gauge(label: "jobs_queue_depth", dimensions: [("kind", key[0]), ("state", key[1])], factory: self.metrics)
                .record(current[key] ?? 0)
        }
        self.seen.formUnion(current.keys)
    }
}
