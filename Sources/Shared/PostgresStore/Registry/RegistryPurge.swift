import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// The registry's maintenance job: instances past their app's maximum age become `expired`; ended, expired and
/// invalid rows older than the app's retention are deleted. It runs once per `interval` on whichever worker
/// claims it: each run is a job whose dedupe key names its time slot, and a run enqueues the next slot.
public struct RegistryPurge: JobHandler {
    public static let kind = JobKind.registryPurge

    let database: Database
    let interval: Duration
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
        try await self.scheduleNext(after: Date())
    }

    /// One pass, in batches so that no statement holds many row locks for long.
    public func purge() async throws -> Report {
        var report = Report()
        report.expired = try await self.repeatBatches(
            """
            WITH done AS (
                UPDATE live_activities SET state = 'expired', ended_reason = 'max_age', ended_at = now()
                WHERE id IN (
                    SELECT la.id FROM live_activities la JOIN apps a ON a.id = la.app_id
                    WHERE la.state = 'active' AND la.started_at <= now() - a.activity_max_age
                    LIMIT \(self.batchSize))
                RETURNING 1)
            SELECT count(*) FROM done
            """)
        report.deletedActivities = try await self.repeatBatches(
            """
            WITH done AS (
                DELETE FROM live_activities WHERE id IN (
                    SELECT la.id FROM live_activities la JOIN apps a ON a.id = la.app_id
                    WHERE la.state <> 'active'
                      AND coalesce(la.ended_at, la.invalidated_at) <= now() - a.registry_retention
                    LIMIT \(self.batchSize))
                RETURNING 1)
            SELECT count(*) FROM done
            """)
        report.deletedPushToStartTokens = try await self.repeatBatches(
            """
            WITH done AS (
                DELETE FROM push_to_start_tokens WHERE (channel_id, attributes_type) IN (
                    SELECT p.channel_id, p.attributes_type FROM push_to_start_tokens p JOIN apps a ON a.id = p.app_id
                    WHERE p.state = 'invalid' AND p.invalidated_at <= now() - a.registry_retention
                    LIMIT \(self.batchSize))
                RETURNING 1)
            SELECT count(*) FROM done
            """)
        return report
    }

    private func repeatBatches(_ query: PostgresQuery) async throws -> Int {
        var total = 0
        while true {
            var count = 0
            for try await n in try await self.database.client.query(query, logger: self.database.logger)
                .decode(Int64.self)
            { count = Int(n) }
            total += count
            if count < self.batchSize { return total }
        }
    }

    /// Makes sure the run of the slot after `date` is queued (idempotent across workers).
    public func scheduleNext(after date: Date) async throws {
        try await Recurring.scheduleNext(kind: Self.kind, every: self.interval, after: date, database: self.database)
    }
}
