import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// `maintenance.retention`, recurring: rotates the delivery history's weekly partitions (`rotatePartitions`: the
/// weeks past the longest retention of any app are dropped whole), then deletes in batches what the drop does not
/// take (`beforeRetention`): push operations whose pushes all finished (their pushes, batches, failures, counts and
/// stamps cascade; their start attempts go first), finished schedules, launches, renewals and the stored answers of
/// the device calls that create (`device_operations`). It also scrubs
/// forgotten channels' ids from the audiences and requests stored with pushes and schedules (one pass per app for
/// every id forgotten since the last run).
public struct RetentionPurge: RecurringJob {
    public static let kind = JobKind.retention

    let database: Database
    public let interval: Duration
    public var queue: Database { self.database }
    let batchSize: Int

    public init(database: Database, interval: Duration = .seconds(600), batchSize: Int = 1_000) {
        self.database = database
        self.interval = interval
        self.batchSize = batchSize
    }

    public func run(_ job: ClaimedJob, logger: Logger) async throws {
        var weeks = (made: 0, dropped: 0)
        do {
            weeks = try await self.rotatePartitions()
        } catch {
            // A lock not granted within its timeout (a long report on the table): the next run tries again.
            logger.warning("retention: partitions not rotated", metadata: ["error": "\(String(reflecting: error))"])
        }
        let (scrubbed, deleted) = try await self.purge()
        if scrubbed + deleted + weeks.made + weeks.dropped > 0 {
            logger.info(
                "retention",
                metadata: [
                    "scrubbed_channels": "\(scrubbed)", "deleted_rows": "\(deleted)",
                    "partitions_made": "\(weeks.made)", "weeks_dropped": "\(weeks.dropped)",
                ])
        }
        try await self.scheduleNext()
    }

    /// The delivery history's weekly partitions (sql/0022): the next `weeksAhead` weeks made, and the weeks wholly
    /// older than the longest retention of any app dropped (detached, then dropped: no row is deleted one by one).
    /// The locks each DDL statement takes wait at most `lockTimeout`. Returns (partitions made, weeks dropped).
    public func rotatePartitions(weeksAhead: Int = 3, lockTimeout: Duration = .seconds(5)) async throws
        -> (made: Int, dropped: Int)
    {
        try await self.database.transaction { connection in
            let milliseconds = lockTimeout.components.seconds * 1000
            let timeout = try await connection.query(
                RegistryMaintenanceStatements.SetLockTimeout.query("\(milliseconds)"), logger: self.database.logger)
            for try await _ in timeout {}
            let rows = try await connection.query(
                RegistryMaintenanceStatements.RotatePartitions.query(Int32(weeksAhead)), logger: self.database.logger)
            guard let row = try await rows.collect().first.map(RegistryMaintenanceStatements.RotatePartitions.Row.init)
            else { return (0, 0) }
            return (row.made, row.dropped)
        }
    }

    /// One pass: forgotten ids scrubbed, then old rows deleted, app by app. Returns (channels scrubbed, rows deleted).
    public func purge() async throws -> (scrubbed: Int, deleted: Int) {
        let scrubbed = try await self.scrubForgotten()
        var deleted = 0
        for appID in try await AppsWithWork.ids(AppsWithWork.Every.self, in: self.database) {
            for statement in Self.batches {
                while true {
                    let count = try await self.count(statement.query(self.batchSize, appID))
                    deleted += count
                    if count < self.batchSize { break }
                }
            }
        }
        return (scrubbed, deleted)
    }

    /// The ids of channels forgotten so far, replaced by the nil UUID in the app's stored pushes and schedules.
    func scrubForgotten() async throws -> Int {
        try await self.database.transaction { connection in
            let rows = try await connection.query(
                RegistryMaintenanceStatements.ScrubForgotten.query(Self.nilID), logger: self.database.logger)
            var count = 0
            for try await n in rows.decode(Int64.self) { count = Int(n) }
            return count
        }
    }

    static let nilID = "00000000-0000-0000-0000-000000000000"

    private func count(_ query: PostgresQuery) async throws -> Int {
        var count = 0
        for try await n in try await self.database.client.query(query, logger: self.database.logger).decode(Int64.self)
        {
            count = Int(n)
        }
        return count
    }
}
