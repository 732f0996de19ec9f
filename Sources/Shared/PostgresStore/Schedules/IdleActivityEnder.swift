import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// Per-app lifecycle policies: an activity that had no update for `idle_end_seconds` gets one end push (dismissed
/// `dismissal_seconds` later), as Sightscreen's stale detection does but from the server. A recurring job
/// (`maintenance.idle_end`) looks for idle activities; each gets exactly one end push, recorded on the instance
/// (`end_push_id`) in the transaction that creates it.
public struct IdleActivityEnder: JobHandler {
    public static let kind = JobKind.idleEnd

    let database: Database
    let interval: Duration
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
        try await Recurring.scheduleNext(kind: Self.kind, every: self.interval, after: Date(), database: self.database)
    }

    /// One pass: up to `limit` idle activities get their end push. Returns how many.
    public func endIdle(now: Date) async throws -> Int {
        let logger = self.database.logger
        return try await self.database.transaction { connection in
            let rows = try await connection.query(
                """
                SELECT la.id, la.app_id, la.channel_id, la.name,
                       coalesce(pt.dismissal_seconds, pd.dismissal_seconds, 0)
                FROM live_activities la
                JOIN apps a ON a.id = la.app_id
                LEFT JOIN activity_policies pt ON pt.app_id = la.app_id AND pt.attributes_type = la.attributes_type
                LEFT JOIN activity_policies pd ON pd.app_id = la.app_id AND pd.attributes_type = ''
                WHERE la.app_id IN (SELECT app_id FROM activity_policies WHERE idle_end_seconds IS NOT NULL)
                  AND la.state = 'active' AND la.end_push_id IS NULL
                  AND la.environment = a.apns_environment AND la.started_at > now() - a.activity_max_age
                  AND coalesce(pt.idle_end_seconds, pd.idle_end_seconds) IS NOT NULL
                  AND coalesce(la.last_update_at, la.started_at)
                      < now() - make_interval(secs => coalesce(pt.idle_end_seconds, pd.idle_end_seconds))
                ORDER BY la.id
                LIMIT \(self.limit)
                FOR UPDATE OF la SKIP LOCKED
                """,
                logger: logger)
            var idle: [(id: Int64, appID: Int64, channel: UUID, name: String, dismissal: Int32)] = []
            for try await row in rows.decode((Int64, Int64, UUID, String, Int32).self) {
                idle.append((row.0, row.1, row.2, row.3, row.4))
            }
            let timestamp = Int64(now.timeIntervalSince1970)
            for (appID, group) in Dictionary(grouping: idle, by: \.appID) {
                let pushes = group.map { activity in
                    PushRequest(
                        audience: .channels([activity.channel]),
                        liveActivity: LiveActivityNotification(
                            event: .end, name: activity.name, dismissalDate: timestamp + Int64(activity.dismissal)),
                        campaignCategories: ["idle_end"])
                }
                let accepted = PushAccepted(operationID: UUID(), pushIDs: pushes.map { _ in UUID() })
                try await PostgresPushStore.insert(
                    try PostgresPushStore.rows(pushes, timestamp: timestamp), accepted: accepted, appID: appID,
                    on: connection, logger: logger)
                try await connection.query(
                    """
                    UPDATE live_activities l SET end_push_id = x.push_id
                    FROM unnest(\(group.map(\.id))::int8[], \(accepted.pushIDs)::uuid[]) AS x(id, push_id)
                    WHERE l.id = x.id
                    """,
                    logger: logger)
            }
            return idle.count
        }
    }
}
