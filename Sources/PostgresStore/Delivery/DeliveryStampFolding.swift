import Foundation
import LiveActivitiesCore
import Logging

/// `delivery.fold_stamps`: a recurring job that folds the deferred delivery stamps of pushes that have finished
/// (and any pending for longer than `maxAge`) into their instances, `statements` at once. A push's last batch also
/// queues a run at once (`DeliveryLedger.finishBatch`). See `DeliveryLedger+DeferredStamps.swift`.
public struct DeliveryStampFolding: JobHandler {
    public static let kind = JobKind.foldStamps

    let ledger: DeliveryLedger
    let interval: Duration
    let maxAge: Duration
    let statements: Int

    public init(
        database: Database, interval: Duration = .seconds(5), maxAge: Duration = .seconds(60), statements: Int = 2
    ) {
        self.ledger = DeliveryLedger(database: database)
        self.interval = interval
        self.maxAge = maxAge
        self.statements = statements
    }

    public func run(_ job: ClaimedJob, logger: Logger) async throws {
        let stamped = try await self.ledger.foldFinishedStamps(olderThan: self.maxAge, statements: self.statements)
        if stamped > 0 { logger.debug("deferred delivery stamps folded", metadata: ["instances": "\(stamped)"]) }
        try await self.scheduleNext(after: Date())
    }

    public func scheduleNext(after date: Date) async throws {
        try await Recurring.scheduleNext(
            kind: Self.kind, every: self.interval, after: date, database: self.ledger.database)
    }
}
