import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// The registry's maintenance job: instances past their app's maximum age become `expired`; ended, expired and
/// invalid rows older than the app's retention are deleted. It runs once per `interval` on whichever worker
/// claims it: each run is a job whose dedupe key names its time slot, and a run enqueues the next slot.
public struct RegistryPurge: RecurringJob {
    public static let kind = JobKind.registryPurge

    let database: Database
    public let interval: Duration
    public var queue: Database { self.database }
    let batchSize: Int

    public init(database: Database, interval: Duration = .seconds(3600), batchSize: Int = 10_000) {
        self.database = database
        self.interval = interval
        self.batchSize = batchSize
    }

    public struct Report: Sendable, Equatable {
        public var expired = 0
        public var deletedActivities = 0
        public var deletedPushToStartTokens = 0

        public init(expired: Int = 0, deletedActivities: Int = 0, deletedPushToStartTokens: Int = 0) {
            self.expired = expired
            self.deletedActivities = deletedActivities
            self.deletedPushToStartTokens = deletedPushToStartTokens
        }
    }

    public func run(_ job: ClaimedJob, logger: Logger) async throws {
        let report = try await self.purge()
        logger.debug(
            "registry purged",
            metadata: [
                "expired": "\(report.expired)", "deleted_activities": "\(report.deletedActivities)",
                "deleted_push_to_start_tokens": "\(report.deletedPushToStartTokens)",
            ])
        try await self.scheduleNext()
    }

    /// One pass, app by app (`AppsWithWork`), in batches so that no statement holds many row locks for long.
    public func purge() async throws -> Report {
        var report = Report()
        for appID in try await AppsWithWork.ids(AppsWithWork.Every.self, in: self.database) {
            report.expired += try await self.repeatBatches(
                RegistryMaintenanceStatements.ExpireActivities.self, appID: appID)
            report.deletedActivities += try await self.repeatBatches(
                RegistryMaintenanceStatements.DeleteOldActivities.self, appID: appID)
            report.deletedPushToStartTokens += try await self.repeatBatches(
                RegistryMaintenanceStatements.DeleteOldPushToStartTokens.self, appID: appID)
        }
        return report
    }

    private func repeatBatches(_ statement: any NamedStatement.Type, appID: Int64) async throws -> Int {
        var total = 0
        while true {
            var count = 0
            let query = try statement.query(self.batchSize, appID)
            for try await n in try await self.database.client.query(query, logger: self.database.logger)
                .decode(Int64.self)
            { count = Int(n) }
            total += count
            if count < self.batchSize { return total }
        }
    }
}
