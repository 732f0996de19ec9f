import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// Per-app lifecycle policies: an activity that had no update for `idle_end_seconds` gets one end push (dismissed
/// `dismissal_seconds` later), as Sightscreen's stale detection does but from the server. A recurring job
/// (`maintenance.idle_end`) looks for idle activities; each gets exactly one end push, recorded on the instance
/// (`end_push_id`) in the transaction that creates it.
public struct IdleActivityEnder: RecurringJob {
    public static let kind = JobKind.idleEnd

    let database: Database
    public let interval: Duration
    public var queue: Database { self.database }
    let limit: Int

    public init(database: Database, interval: Duration = .seconds(10), limit: Int = 1000) {
        self.database = database
        self.interval = interval
        self.limit = limit
    }

    public func run(_ job: ClaimedJob, logger: Logger) async throws {
        // The idle check reads the rows' `last_update_at`: stamps of pushes sent in batches go in first.
        try await DeliveryLedger(database: self.database).foldStampsOfAppsWithPolicies()
        var ended = 0
        repeat {
            let count = try await self.endIdle(now: Date())
            ended += count
            if count < self.limit { break }
        } while true
        if ended > 0 { logger.debug("idle activities ended", metadata: ["count": "\(ended)"]) }
        try await self.scheduleNext()
    }

    /// One pass: in each app with an idle-end policy, up to `limit` idle activities get their end push, one
    /// transaction per app (`AppsWithWork`). Returns how many.
    public func endIdle(now: Date) async throws -> Int {
        var ended = 0
        for appID in try await AppsWithWork.ids(AppsWithWork.WithIdleEndPolicy.self, in: self.database) {
            ended += try await self.endIdle(appID: appID, now: now)
        }
        return ended
    }

    private func endIdle(appID: Int64, now: Date) async throws -> Int {
        let logger = self.database.logger
        return try await self.database.transaction { connection in
            let rows = try await connection.query(
                ActivityJobStatements.IdleDue.query(self.limit, appID), logger: logger)
            let idle = try await rows.collect().map(ActivityJobStatements.IdleDue.Row.init)
            let timestamp = Int64(now.timeIntervalSince1970)
            guard !idle.isEmpty else { return 0 }
            let pushes = idle.map { activity in
                PushRequest(
                    audience: .channels([activity.channel]),
                    liveActivity: LiveActivityNotification(
                        event: .end, name: activity.name,
                        dismissalDate: timestamp + Int64(activity.dismissalSeconds)),
                    campaignCategories: ["idle_end"])
            }
            let accepted = PushAccepted(operationID: UUID(), pushIDs: pushes.map { _ in UUID() })
            try await PostgresPushStore.insert(
                try PostgresPushStore.rows(pushes, timestamp: timestamp), accepted: accepted, appID: appID,
                on: connection, logger: logger)
            try await connection.query(
                ActivityJobStatements.SetEndPushes.query(idle.map(\.id), accepted.pushIDs, appID), logger: logger)
            return idle.count
        }
    }
}
