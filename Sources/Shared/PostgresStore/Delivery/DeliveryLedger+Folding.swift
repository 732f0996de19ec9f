import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// Pending stamps that no reader needs any more are dropped, not folded (`sql/0024_pending_stamps.sql`). The
/// statements are `StampStatements`.
extension DeliveryLedger {
    /// What one `foldPendingStamps()` did.
    public struct FoldedStamps: Sendable, Equatable {
        /// Pending rows dropped because a newer push superseded them.
        public var rowsDropped = 0
        /// Instances stamped: from dropped rows that no newer pending push reached, and from the rows of names without
        /// an active instance left (folded).
        public var instancesStamped = 0

        public init(rowsDropped: Int = 0, instancesStamped: Int = 0) {
            self.rowsDropped = rowsDropped
            self.instancesStamped = instancesStamped
        }
    }

    /// Folds the pending stamps of every name: for each name with more than one pending push done adding rows
    /// (finished, no chunk in flight), the rows of those older in `PushOrder` than the newest one are dropped
    /// (`dropSupersededStamps`); names without an active instance have their rows folded; pushes done adding rows that
    /// have none left lose their `delivery_stamp_pushes` row.
    @discardableResult
    public func foldPendingStamps() async throws -> FoldedStamps {
        var folded = FoldedStamps()
        let logger = self.database.logger
        try await self.database.client.query(try StampStatements.RestorePendingPushes.query(), logger: logger)
        let names = try await self.database.client.query(
            try StampStatements.NamesWithSupersededStamps.query(), logger: logger
        ).collect()
        for row in names {
            let name = try StampStatements.NamesWithSupersededStamps.Row(row)
            let (dropped, stamped) = try await self.dropSupersededStamps(appID: name.appID, name: name.name)
            folded.rowsDropped += dropped
            folded.instancesStamped += stamped
        }
        folded.instancesStamped += try await self.foldStampsOfNamesWithoutActiveInstances()
        try await self.database.client.query(try StampStatements.ForgetPushesWithoutStamps.query(), logger: logger)
        return folded
    }

    /// Runs `StampStatements.DropSupersededStamps` for `name`, one transaction at a time per name. Answers the rows
    /// dropped and the instances stamped.
    func dropSupersededStamps(appID: Int64, name: String) async throws -> (rows: Int, instances: Int) {
        let logger = self.database.logger
        var deadlocks = 0
        while true {
            do {
                return try await self.database.transaction { connection in
                    // One fold of a name at a time: the push's end and the recurring run both come (a second one
                    // would wait for the first's row locks, then hash the ids again for nothing).
                    let lock = try await connection.query(
                        try StampStatements.TryLockName.query("\(appID):\(name)"), logger: logger)
                    for try await row in lock {
                        guard try StampStatements.TryLockName.Row(row).locked else { return (0, 0) }
                    }
                    let workMem = try await connection.query(try StampStatements.SetWorkMem.query(), logger: logger)
                    for try await _ in workMem {}
                    let rows = try await connection.query(
                        try StampStatements.DropSupersededStamps.query(appID, name), logger: logger)
                    for try await row in rows {
                        let dropped = try StampStatements.DropSupersededStamps.Row(row)
                        return (dropped.rows, dropped.instances)
                    }
                    return (0, 0)
                }
            } catch  where error.isDeadlock && deadlocks < 3 {
                deadlocks += 1  // rolled back as a whole: the rows are still pending
            }
        }
    }

    /// Folds the pending rows of names that have no active instance left and no pending push still adding rows (an
    /// `end` sent to all of them, say): nothing newer will reach those instances, and a tap on one that is still on
    /// the Lock Screen is attributed to its last push.
    func foldStampsOfNamesWithoutActiveInstances() async throws -> Int {
        var stamped = 0
        let logger = self.database.logger
        for appID in try await AppsWithWork.ids(AppsWithWork.WithPendingStamps.self, in: self.database) {
            var names: [String] = []
            let rows = try await self.database.client.query(
                try FoldStatements.NamesWithoutActiveInstances.query(appID), logger: logger)
            for try await name in rows.decode(String.self) { names.append(name) }
            guard !names.isEmpty else { continue }
            stamped += try await self.fold { try FoldStatements.FoldOfNames.query(appID, names, $0) }
        }
        return stamped
    }
}
