import Foundation
import LiveActivitiesCore
import Logging

/// `delivery.fold_stamps`: a recurring job that folds the pending delivery stamps (`DeliveryLedger.foldPendingStamps`):
/// the rows of pushes that a newer finished push of the same name supersedes are dropped, and so are those of names
/// without an active instance. A push's last batch also queues a run at once when other pushes of its name have
/// stamps pending (`DeliveryLedger.finishBatch`). See `DeliveryLedger+DeferredStamps.swift`.
public struct DeliveryStampFolding: RecurringJob {
    public static let kind = JobKind.foldStamps

    let ledger: DeliveryLedger
    public let interval: Duration
    public var queue: Database { self.ledger.database }

    public init(database: Database, interval: Duration = .seconds(5)) {
        self.ledger = DeliveryLedger(database: database)
        self.interval = interval
    }

    public func run(_ job: ClaimedJob, logger: Logger) async throws {
        let folded = try await self.ledger.foldPendingStamps()
        if folded.rowsDropped > 0 {
            logger.debug(
                "pending delivery stamps folded",
                metadata: ["rows": "\(folded.rowsDropped)", "instances": "\(folded.instancesStamped)"])
        }
        try await self.scheduleNext()
    }
}
