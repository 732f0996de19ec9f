import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// The outcome of one chunk of a batch, ready to be written.
public struct ChunkOutcome: Sendable {
    public var accepted: [PushTargets.Target] = []
    public var failures: [(target: PushTargets.Target, failure: DeliveryFailure)] = []
    public var skipped = 0
    /// Targets a newer push to the same name reaches instead (`PushOrder`).
    public var superseded = 0
    /// Starts held (`TargetHold`): the name active or a start still unconfirmed; the channel's start budget spent.
    public var alreadyActive = 0
    public var startBudget = 0
    public var suspectToken = 0
    /// Priority-10 updates sent at priority 5 under the update budget.
    public var downgraded = 0
    /// Instances that accepted a priority-10 update their budget counts.
    public var budgeted: [Int64] = []
    public var configurationError: String?
    /// The last channel id of the chunk: where the batch resumes.
    public var cursor: UUID
    public var processed: Int
    /// Invalidations apply only to tokens not registered again since this instant.
    public var sendStartedAt: Date

    public init(cursor: UUID, processed: Int, sendStartedAt: Date) {
        self.cursor = cursor
        self.processed = processed
        self.sendStartedAt = sendStartedAt
    }

    public var sent: Int { self.accepted.count + self.failures.count }
}

extension DeliveryLedger {
    /// Writes a chunk's outcome: instance timestamps (and ends), dead tokens, failure rows, the batch's counts and
    /// cursor; a configuration error fails the push and stops its batches. `lastOfBatch`: nothing follows this chunk
    /// in its batch, which is marked finished with it. A chunk that all went through and is not the last is one
    /// statement (atomic by itself, no BEGIN / COMMIT round trips); anything else is one transaction.
    /// `deferStamps`: an update's instance stamps go to `delivery_stamps` and stay pending there, read where they are
    /// (`DeliveryLedger+DeferredStamps.swift`); a push sent in batches does that, a single-chunk push stamps at once.
    /// The same statement declares the batch's next chunk as in flight (`DeliveryLedger+Supersession.swift`).
    /// Returns how many superseding pushes the next chunk must honour, or nil once the batch stopped (the push was
    /// canceled, or failed).
    ///
    /// A start's record is followed, once committed, by `ConfirmStartsStatement` over the channels Apple accepted:
    /// a device may have registered the started activity before the attempt was written; then, but on Citus, by
    /// `AttemptStatisticsStatement`: the attempts' partition analyzed once it outgrew the statistics plans were made on.
    @discardableResult
    public func record(
        _ outcome: ChunkOutcome, push: PushForDelivery, seq: Int32, lastOfBatch: Bool = false,
        deferStamps: Bool = false, runner: UUID? = nil
    ) async throws -> Int? {
        let goesOn = try await self.recordOnly(
            outcome, push: push, seq: seq, lastOfBatch: lastOfBatch, deferStamps: deferStamps, runner: runner)
        if push.targets.event == .start, !outcome.accepted.isEmpty, let name = push.targets.name {
            await ConfirmStartsStatement.run(
                appID: push.appID, channels: outcome.accepted.map(\.channelID), name: name, in: self.database)
            // Known since the record (`recordOnly` asked): no statement, and nothing thrown after the commit.
            if (try? await self.isDistributed()) == false {
                await self.attemptStatistics.refresh(pushID: push.id, appID: push.appID, in: self.database)
            }
        }
        return goesOn
    }

    private func recordOnly(
        _ outcome: ChunkOutcome, push: PushForDelivery, seq: Int32, lastOfBatch: Bool, deferStamps: Bool,
        runner: UUID?
    ) async throws -> Int? {
        let logger = self.database.logger
        let bindings = ChunkRecordBindings(
            outcome, push: push, seq: seq, deferStamps: deferStamps, last: lastOfBatch, runner: runner)
        let byID = try await self.isDistributed()
        let statement = Self.recordStatement(push.targets.event, byID: byID)
        if outcome.failures.isEmpty && outcome.configurationError == nil && !lastOfBatch {
            // Prepared: the same statement for every chunk.
            let superseding = try await self.database.client.withConnection { connection in
                try await Self.record(bindings, as: statement, on: connection, logger: logger).goesOn
            }
            if superseding == nil {
                try await self.database.client.query(
                    Self.trueUpStoppedEstimates(pushID: push.id, seq: seq), logger: logger)
            }
            return superseding
        }
        return try await self.database.transaction { connection in
            // Prepared here too: unprepared, the record was planned for every batch's last chunk, about 3 ms each
            // (pg_stat_statements counted those plans under the prepared statement's entry: one query, one id).
            let (answered, goesOn) = try await Self.record(bindings, as: statement, on: connection, logger: logger)
            // No row: another run claimed the batch (`claimBatch`). It sends this chunk again and records its
            // failures and any configuration error itself; this run's answers are not counted twice.
            guard answered else { return nil }
            if goesOn == nil {
                try await connection.query(Self.trueUpStoppedEstimates(pushID: push.id, seq: seq), logger: logger)
            }
            let isStart = push.targets.event == .start
            let dead = outcome.failures.filter(\.failure.invalidatesToken)
            if !dead.isEmpty {
                if isStart {
                    try await connection.query(
                        InvalidateStartTokensStatement.query(
                            channels: dead.map(\.target.channelID), tokens: dead.map(\.target.token),
                            reasons: dead.map(\.failure.reason), attributesType: push.targets.attributesType ?? "",
                            sentAt: outcome.sendStartedAt), logger: logger)
                } else {
                    try await connection.query(
                        InvalidateInstanceTokensStatement.query(
                            instances: dead.map(\.target.instanceID), tokens: dead.map(\.target.token),
                            reasons: dead.map(\.failure.reason), sentAt: outcome.sendStartedAt), logger: logger)
                }
            }
            if !outcome.failures.isEmpty {
                let failures = outcome.failures
                try await connection.query(
                    InsertFailuresStatement.query(
                        pushID: push.id, appID: push.appID, channels: failures.map(\.target.channelID),
                        tokens: failures.map(\.target.token), statuses: failures.map { Int32($0.failure.status ?? 0) },
                        reasons: failures.map(\.failure.reason)), logger: logger)
                try await connection.query(
                    CountFailuresStatement.query(pushID: push.id, reasons: failures.map(\.failure.reason)),
                    logger: logger)
            }
            if let reason = outcome.configurationError {
                try await connection.query(FailPushStatement.query(pushID: push.id, reason: reason), logger: logger)
                try await Self.stopBatches(pushID: push.id, on: connection, logger: logger)
                return nil
            }
            if lastOfBatch, goesOn != nil {
                try await Self.finishBatch(
                    pushID: push.id, appID: push.appID, seq: seq, runner: runner, on: connection, logger: logger)
            }
            return goesOn
        }
    }

    /// The record of a chunk of a push of `event`; by id on Citus.
    static func recordStatement(_ event: LiveActivityNotification.Event, byID: Bool) -> any ChunkRecordStatement.Type {
        switch (event, byID) {
        case (.end, false): EndChunkRecordStatement.self
        case (.end, true): ChunkRecordByIDStatement<EndChunkRecordStatement>.self
        case (.start, false), (.update, false): UpdateChunkRecordStatement.self
        case (.start, true), (.update, true): ChunkRecordByIDStatement<UpdateChunkRecordStatement>.self
        }
    }

    /// Runs a chunk's record, prepared, on `connection`: whether its batch row answered (no row: another run claimed
    /// the batch), and the superseding count while the batch goes on (nil once it stopped).
    private static func record<S: ChunkRecordStatement>(
        _ bindings: ChunkRecordBindings, as statement: S.Type, on connection: DatabaseConnection, logger: Logger
    ) async throws -> (answered: Bool, goesOn: Int?) {
        let rows = try await connection.execute(S(bindings), logger: logger).elements
        let superseding = rows.last(where: { $0.state == .queued })?.superseding
        return (!rows.isEmpty, superseding.map(Int.init))
    }

    /// Stops the push's unfinished batches: what they had not processed yet is `canceled`. Answers how many that is.
    @discardableResult
    static func stopBatches(pushID: UUID, on connection: DatabaseConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query(StopBatchesStatement.query(pushID: pushID), logger: logger)
        var canceled: Int64 = 0
        for try await row in rows { canceled = try StopBatchesStatement.decode(row).canceled }
        try await connection.query(Self.trueUpStoppedEstimates(pushID: pushID), logger: logger)
        return canceled
    }

    /// A stopped batch whose size was an estimate (`BatchPlan.estimated`) has read what it read and cancels the rest
    /// of the estimate: its `targets` become `processed + canceled` (more than the estimate when it had read more),
    /// and the push's `targeted` moves by the difference, so `sent + superseded + skipped + canceled = targeted`
    /// holds for it too. Run after batches are stopped (all of them, `seq` nil) and after a chunk recorded on a
    /// stopped batch (that batch alone: two records truing up each other's rows deadlocked and lost a record); the
    /// rows are locked first, so two of these at once move `targeted` once.
    static func trueUpStoppedEstimates(pushID: UUID, seq: Int32? = nil) -> PostgresQuery {
        TrueUpStoppedEstimatesStatement.query(pushID: pushID, seq: seq)
    }

    /// Marks a batch finished; the last one to finish marks the push done.
    public func finishBatch(pushID: UUID, appID: Int64, seq: Int32, runner: UUID? = nil) async throws {
        let logger = self.database.logger
        try await self.database.transaction { connection in
            try await Self.finishBatch(
                pushID: pushID, appID: appID, seq: seq, runner: runner, on: connection, logger: logger)
        }
    }

    /// Marks the batch done. Targets its plan counted that its chunks no longer found (ended by a newer `end` push,
    /// ended or untracked by the device, their channel deleted, between the plan and their chunk) count as skipped,
    /// so that `sent + superseded + skipped + canceled = targeted` holds (the ordering test caught 100 of 2,000
    /// missing when a newer end reached a range before an older update's batch read it). A batch whose size was
    /// estimated (`BatchPlan.estimated`) counted its targets as it read them: its `targets` become that count, and
    /// the push's `targeted` moves by the difference.
    private static func finishBatch(
        pushID: UUID, appID: Int64, seq: Int32, runner: UUID?, on connection: DatabaseConnection, logger: Logger
    ) async throws {
        let finished = try await connection.execute(
            FinishBatchStatement.prepared(pushID: pushID, appID: appID, seq: seq, runner: runner), logger: logger)
        var correction: Int64?
        for try await row in finished { correction = try FinishBatchStatement.decode(row).targetsMoved }
        guard let correction else { return }
        let rows = try await connection.execute(
            CountFinishedBatchStatement.prepared(pushID: pushID, appID: appID, targetsMoved: correction), logger: logger
        )
        var pushDone = false
        for try await row in rows { pushDone = try CountFinishedBatchStatement.decode(row).foldOthers }
        // The push's last batch, if other pushes of its name have stamps pending: those this push supersedes are
        // dropped now (`DeliveryLedger+DeferredStamps.swift`), not at the recurring run's next slot.
        if pushDone {
            _ = try await PostgresJobQueue.enqueue(
                [
                    JobRequest(
                        kind: .foldStamps, appID: 0, priority: -1, maxAttempts: 3,
                        dedupeKey: "\(JobKind.foldStamps)@push:\(pushID)")
                ], on: connection, logger: logger)
        }
    }
}
