import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// The app's quotas, checked inside the transaction that writes (so a refusal writes nothing). Counts stop at the
/// limit (`LIMIT`), so a check costs at most the quota's worth of index entries. Concurrent writes may each pass
/// and overshoot by their own size: the quotas bound resources, they are not exact.
enum Quotas {
    /// Tags of each of `channels` against `max_tags_per_channel`.
    static func checkTags(channels: [UUID], appID: Int64, on connection: DatabaseConnection, logger: Logger)
        async throws
    {
        let rows = try await connection.query(
            """
            SELECT a.max_tags_per_channel, max(x.n)
            FROM apps a
            CROSS JOIN LATERAL (
                SELECT (SELECT count(*) FROM channel_tags t WHERE t.channel_id = c) AS n FROM unnest(\(channels)::uuid[]) AS c
            ) x
            WHERE a.id = \(appID)
            GROUP BY a.max_tags_per_channel
            """, logger: logger)
        for try await (limit, most) in rows.decode((Int32, Int64?).self) where (most ?? 0) > Int64(limit) {
            throw QuotaExceeded(quota: "max_tags_per_channel", limit: Int(limit))
        }
    }

    /// Pending device-scheduled updates of one activity and of the app, with one more to come.
    static func checkPendingUpdates(
        appID: Int64, channelID: UUID, name: String, on connection: DatabaseConnection, logger: Logger
    ) async throws {
        let rows = try await connection.query(
            """
            SELECT a.max_pending_updates_per_activity, a.max_pending_updates,
                   (SELECT count(*) FROM schedules s WHERE s.channel_id = \(channelID) AND s.activity_name = \(name)
                      AND s.state = 'pending'),
                   (SELECT count(*) FROM (SELECT 1 FROM schedules s WHERE s.app_id = a.id AND s.state = 'pending'
                                            AND s.source = 'activity' LIMIT a.max_pending_updates) x)
            FROM apps a WHERE a.id = \(appID)
            """, logger: logger)
        for try await (perActivity, perApp, activity, app) in rows.decode((Int32, Int32, Int64, Int64).self) {
            if activity >= Int64(perActivity) {
                throw QuotaExceeded(quota: "max_pending_updates_per_activity", limit: Int(perActivity))
            }
            if app >= Int64(perApp) { throw QuotaExceeded(quota: "max_pending_updates", limit: Int(perApp)) }
        }
    }

    /// Pending API schedules of the app, with `adding` more to come.
    static func checkSchedules(appID: Int64, adding: Int, on connection: DatabaseConnection, logger: Logger)
        async throws
    {
        let rows = try await connection.query(
            """
            SELECT a.max_schedules,
                   (SELECT count(*) FROM (SELECT 1 FROM schedules s WHERE s.app_id = a.id AND s.state = 'pending'
                                            AND s.source = 'api' LIMIT a.max_schedules) x)
            FROM apps a WHERE a.id = \(appID)
            """, logger: logger)
        for try await (limit, pending) in rows.decode((Int32, Int64).self) where pending + Int64(adding) > Int64(limit)
        {
            throw QuotaExceeded(quota: "max_schedules", limit: Int(limit))
        }
    }
}
