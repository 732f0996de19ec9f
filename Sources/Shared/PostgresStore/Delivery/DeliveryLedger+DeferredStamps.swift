import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// Deferred delivery stamps (`sql/0011_deferred_stamps.sql`, `sql/0024_pending_stamps.sql`). A push sent in batches
/// records, per chunk, the instances it reached in one `delivery_stamps` row, and they stay pending there: nothing
/// rewrites a million instances after the push. Readers that need an instance's last push merge them
/// (`PendingStamps`); a push older than a pending stamp folds the stamps that could make it skip an instance; apps
/// whose jobs read the rows fold theirs first; and a push's rows are dropped once a newer push of the name covers them.
extension DeliveryLedger {
    /// Pending stamp rows taken per fold statement: a bound on the row locks one statement holds. One backend folds
    /// a million instances faster with more rows a statement (7.1-7.4 s at 16, 5.7 s at 128, on a million instances
    /// in chunks of 1,000), but two statements side by side at 128 took 8.9 s instead of 4.1 s (`make bench-fanout`,
    /// when every push was folded): two open statements updating the same pages fill them before either can prune.
    static let foldRowsPerStatement = 16

    /// When a push's chunk select found them (its `blocked` column): folds the pending stamps of the same app and
    /// name that are newer than the push in `PushOrder` (timestamp, then acceptance) and hold channels in
    /// (after, through] (nil: unbounded), so that the select, made again, sees every instance's last push. Returns how
    /// many instances were stamped.
    @discardableResult
    public func foldStamps(blocking push: PushForDelivery, after: UUID? = nil, through: UUID? = nil) async throws
        -> Int
    {
        guard push.targets.event != .start, let name = push.targets.name else { return 0 }
        return try await self.fold { limit in
            FoldStatements.FoldBlocking.query(
                appID: push.appID, name: name, order: push.order, after: after, through: through, limit: limit)
        }
    }

    /// Folds every pending stamp of the apps with an idle-end or a renewal policy: those jobs read `last_update_at`
    /// and `last_push_id` of many instances at once, in the rows.
    @discardableResult
    public func foldStampsOfAppsWithPolicies() async throws -> Int {
        var stamped = 0
        for appID in try await AppsWithWork.ids(AppsWithWork.WithPolicies.self, in: self.database) {
            stamped += try await self.fold { try FoldStatements.FoldOfApp.query(appID, $0) }
        }
        return stamped
    }

    /// Runs a fold statement (`FoldStatements`; `statement` binds the rows it may take) until it finds no pending row,
    /// each run its own transaction. A row another fold holds is waited for, then found gone (so a statement may take
    /// fewer than it could: only an empty one ends the loop).
    func fold(_ statement: (_ limit: Int) throws -> PostgresQuery) async throws -> Int {
        var stamped = 0
        var deadlocks = 0
        while true {
            var taken: Int64 = 0
            do {
                let rows = try await self.database.client.query(
                    try statement(Self.foldRowsPerStatement), logger: self.database.logger)
                for try await row in rows {
                    let folded = try FoldStatements.Row(row)
                    taken = folded.rows
                    stamped += Int(folded.instances)
                }
            } catch  where error.isDeadlock && deadlocks < 3 {
                deadlocks += 1  // the statement rolled back as a whole: its rows are still pending
                continue
            }
            if taken == 0 { return stamped }
        }
    }
}
