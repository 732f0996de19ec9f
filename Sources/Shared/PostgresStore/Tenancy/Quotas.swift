import Foundation
import LiveActivitiesCore
import Logging
import PostgresDatabase
import PostgresNIO

/// The app's quotas, checked inside the transaction that writes (so a refusal writes nothing). Counts stop at the
/// limit (`LIMIT`), so a check costs at most the quota's worth of index entries. Concurrent writes may each pass
/// and overshoot by their own size: the quotas bound resources, they are not exact.
enum Quotas {
    /// Tags of each of `channels` against `max_tags_per_channel`. Prepared: a registration with tags runs it.
    static func checkTags(channels: [UUID], appID: Int64, on connection: DatabaseConnection, logger: Logger)
        async throws
    {
        let rows = try await connection.execute(
            try TenancyStatements.TagQuota.prepared(channels, appID), logger: logger)
        for row in try await rows.collect().map(TenancyStatements.TagQuota.Row.init)
        where (row.most ?? 0) > Int64(row.limit) {
            throw QuotaExceeded(quota: "max_tags_per_channel", limit: Int(row.limit))
        }
    }

    /// Pending device-scheduled updates of one activity and of the app, with one more to come.
    static func checkPendingUpdates(
        appID: Int64, channelID: UUID, name: String, on connection: DatabaseConnection, logger: Logger
    ) async throws {
        let rows = try await connection.execute(
            try TenancyStatements.PendingUpdatesQuota.prepared(channelID, name, appID), logger: logger)
        for row in try await rows.collect().map(TenancyStatements.PendingUpdatesQuota.Row.init) {
            if row.activityPending >= Int64(row.perActivityLimit) {
                throw QuotaExceeded(quota: "max_pending_updates_per_activity", limit: Int(row.perActivityLimit))
            }
            if row.appPending >= Int64(row.perAppLimit) {
                throw QuotaExceeded(quota: "max_pending_updates", limit: Int(row.perAppLimit))
            }
        }
    }

    /// Pending API schedules of the app, with `adding` more to come.
    static func checkSchedules(appID: Int64, adding: Int, on connection: DatabaseConnection, logger: Logger)
        async throws
    {
        let rows = try await connection.query(TenancyStatements.SchedulesQuota.query(appID), logger: logger)
        for row in try await rows.collect().map(TenancyStatements.SchedulesQuota.Row.init)
        where row.pending + Int64(adding) > Int64(row.limit) {
            throw QuotaExceeded(quota: "max_schedules", limit: Int(row.limit))
        }
    }
}
