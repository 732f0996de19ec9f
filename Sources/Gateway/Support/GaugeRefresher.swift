import PostgresStore
import ServiceLifecycle

/// Refreshes the gauges that read PostgreSQL (`jobs_queue_depth`) on a timer, so that a scrape of `/metrics` never
/// queries the database: anyone who can reach `/metrics` could otherwise make it run a `GROUP BY` over `jobs` at will.
struct GaugeRefresher: Service {
    let gauges: QueueDepthGauges
    let interval: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await self.gauges.refresh()
                try? await Task.sleep(for: self.interval)
            }
        }
    }
}
