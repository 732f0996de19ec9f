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
        for appID in try await AppsWithWork.ids(AppsWithWork.WithUnsettledStarts.self, in: self.database) {
            while try await self.settle(appID: appID) == self.limit {}
        }
        try await self.scheduleNext()
    }

    /// One pass over up to `limit` pushes of each app with unsettled starts (`AppsWithWork`); returns how many it
    /// settled.
    @discardableResult
    public func settle() async throws -> Int {
        var settled = 0
        for appID in try await AppsWithWork.ids(AppsWithWork.WithUnsettledStarts.self, in: self.database) {
            settled += try await self.settle(appID: appID)
        }
        return settled
    }

    /// Up to `limit` pushes of app `appID`, in one statement.
    private func settle(appID: Int64) async throws -> Int {
        let rows = try await self.database.client.query(
            try PushStatements.SettleStarts.query(Int64(self.limit), appID), logger: self.database.logger)
        var settled = 0
        var started: Int64 = 0
        var notStarted: Int64 = 0
        for try await row in rows {
            let counts = try PushStatements.SettleStarts.Row(row)
            settled += 1
            started += counts.started
            notStarted += counts.notStarted
        }
        let counter = { Counter(label: Self.metric, dimensions: [("outcome", $0)], factory: self.metrics) }
        if settled > 0 {
            counter("started").increment(by: Int(started))
            counter("not_started").increment(by: Int(notStarted))
        }
        return settled
    }
}
