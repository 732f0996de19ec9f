import APNsCommon
import APNsTransport
import BroadcastManagement
import Foundation
import LiveActivitiesCore
import Logging
import Metrics
import PostgresStore
import ServiceLifecycle

/// `push.batch`: sends one batch of a push in chunks. Each chunk is selected in one query (the next one while the
/// current one is sent), sent as one APNs call (the body shared by every request), retried where APNs says so, and
/// recorded in one transaction together with the batch's cursor, so a worker that dies re-sends at most the chunk
/// it had in flight. Each chunk is declared in flight before it is sent (the previous chunk's record declares the next)
/// and leaves out the targets of pushes that superseded this one (`DeliveryLedger+Supersession.swift`). `BatchSend`
/// decides all of it; this handler runs its actions.
struct PushBatchHandler: JobHandler {
    let database: Database
    let ledger: DeliveryLedger
    let apns: APNsClient
    let deliveries: DeliveryConfigCache
    let settings: DeliverySettings
    let metrics: any MetricsFactory
    let budgets: UpdateBudgetCache

    func run(_ job: ClaimedJob, logger: Logger) async throws {
        let reference = try job.payload(as: PushBatchJob.self)
        var logger = logger
        logger[metadataKey: "push_id"] = "\(reference.pushID.uuidString.lowercased())"
        logger[metadataKey: "batch"] = "\(reference.batch)"
        guard let push = try await self.ledger.push(reference.pushID) else { return }
        try await self.deliver(push, seq: reference.batch, logger: logger)
    }

    /// Sends batch `seq` of `push` (as read, its update budgets not applied yet) from its cursor to its end.
    func deliver(_ push: PushForDelivery, seq: Int32, logger: Logger) async throws {
        guard let batch = try await self.ledger.claimBatch(pushID: push.id, appID: push.appID, seq: seq),
            batch.state == .queued
        else {
            return
        }
        var push = push
        try await push.applyUpdateBudgets(from: self.budgets)
        try await self.deliver(push, batch: batch, first: nil, logger: logger)
    }

    /// Sends `batch` from its cursor to its end, running what `BatchSend` decides. `first`: its first chunk, already
    /// read and declared in flight by the caller (a fan-out that has just marked the push as sending and found that it
    /// fits in one chunk), with the superseding count it declared. `push` has its update budgets applied.
    func deliver(
        _ push: PushForDelivery, batch: PushBatch, first: (targets: [PushTargets.Target], superseding: Int)?,
        logger: Logger
    ) async throws {
        guard let (bundleID, credentials) = try await self.deliveries.configuration(appID: push.appID) else {
            throw JobError.permanent("the app no longer exists")
        }
        let run = ChunkRun(
            push: push, batch: batch, topic: APNsRequest.liveActivityTopic(bundleID: bundleID),
            credentials: credentials, deferStamps: self.settings.deferStamps && !batch.sentByFanout)
        var send = BatchSend(
            event: push.targets.event, order: push.order, priority: push.priority,
            resumeAfter: batch.cursor ?? batch.lower, first: first,
            settings: .init(
                chunkSize: self.settings.chunkSize, maxAttempts: self.settings.maxAttempts,
                backoff: self.settings.backoff))
        var superseders: [Audience] = []
        var clock = ContinuousClock.now
        var action = send.start()
        while true {
            switch action {
            case .select(let after):
                let chunk = try await self.select(run, after: after)
                self.phase("select", since: &clock)
                action = send.selected(chunk)
            case .declare:
                let declared = try await self.ledger.declareChunk(
                    pushID: push.id, appID: push.appID, seq: batch.seq, runner: batch.runner)
                action = send.declared(superseding: declared)
            case .startChunk(let prefetchAfter):
                action = try await self.sendChunk(&send, run, prefetchAfter: prefetchAfter, superseders: &superseders)
                clock = ContinuousClock.now
            case .finishBatch:
                try await self.ledger.finishBatch(
                    pushID: push.id, appID: push.appID, seq: batch.seq, runner: batch.runner)
                return
            case .end:
                return
            case .refused(let reason):
                logger.error("push stopped: APNs refused its configuration", metadata: ["reason": "\(reason)"])
                return
            case .interrupt:
                throw JobError.interrupted
            case .readSuperseders, .findReached, .send, .wait, .record, .takeNext:
                preconditionFailure("\(action) outside a chunk")
            }
        }
    }

    /// What every chunk of one batch's send shares.
    struct ChunkRun: Sendable {
        let push: PushForDelivery
        let batch: PushBatch
        let topic: String
        let credentials: APNsCredentials
        let deferStamps: Bool
        /// A deferred stamp is recorded by id: the select need not read where each row is, and reads one index alone.
        var rowRefs: Bool { !(self.deferStamps && self.push.targets.event == .update) }
    }

    /// Runs one chunk's actions, from its start to its record, while the next chunk is read (`prefetchAfter`). Answers
    /// the action after the record (with the next chunk taken, if it was read).
    private func sendChunk(
        _ send: inout BatchSend, _ run: ChunkRun, prefetchAfter: UUID?, superseders: inout [Audience]
    ) async throws -> BatchSend.Action {
        let push = run.push
        async let following = self.select(run, after: prefetchAfter, prefetch: true)
        var clock = ContinuousClock.now
        var action = send.chunkStarted(at: Date())
        while true {
            switch action {
            case .readSuperseders:
                superseders = try await self.ledger.superseders(of: push.id)
                action = send.supersedersRead(count: superseders.count)
            case .findReached(let channels):
                let reached = try await self.ledger.channels(channels, reachedBy: superseders, appID: push.appID)
                action = send.reached(reached)
            case .send(let round):
                let chunk = send.chunk
                let requests = zip(round.indexes, round.priorities).map { index, priority in
                    APNsRequest(
                        deviceToken: chunk[index].token, topic: run.topic, body: push.payload, priority: priority)
                }
                let results = await self.apns.send(requests, credentials: run.credentials)
                action = send.answered(results, random: Double.random(in: 0..<1))
            case .wait(let delay):
                try await Task.sleep(for: delay)
                action = send.waited()
            case .declare:
                let declared = try await self.ledger.declareChunk(
                    pushID: push.id, appID: push.appID, seq: run.batch.seq, runner: run.batch.runner)
                action = send.declared(superseding: declared)
            case .record(let outcome, let lastOfBatch):
                self.phase("send", since: &clock)
                // Unless it is the batch's last, the record declares the next chunk in flight.
                let next = try await self.ledger.record(
                    outcome, push: push, seq: run.batch.seq, lastOfBatch: lastOfBatch, deferStamps: run.deferStamps,
                    runner: run.batch.runner)
                self.phase("record", since: &clock)
                self.count(outcome)
                action = send.recorded(superseding: next, shuttingDown: Task.isShuttingDownGracefully)
                guard case .takeNext = action else { return action }
                let chunk = try await following
                self.phase("select", since: &clock)  // only the part the send and record did not hide
                return send.selected(chunk)
            case .select, .startChunk, .takeNext, .finishBatch, .end, .refused, .interrupt:
                preconditionFailure("\(action) inside a chunk")
            }
        }
    }

    /// The batch's targets after `after` (up to its upper bound), a chunk's worth; none for a prefetch of nothing.
    private func select(_ run: ChunkRun, after: UUID?, prefetch: Bool = false) async throws -> [PushTargets.Target] {
        if prefetch && after == nil { return [] }
        return try await self.ledger.chunk(
            of: run.push, after: after, upTo: run.batch.upper, limit: self.settings.chunkSize, rowRefs: run.rowRefs)
    }

    /// Time per phase of a chunk: `worker_push_phase_seconds{phase}` (select, send, record).
    private func phase(_ name: String, since start: inout ContinuousClock.Instant) {
        let now = ContinuousClock.now
        Timer(label: "worker_push_phase_seconds", dimensions: [("phase", name)], factory: self.metrics)
            .recordInterval(now - start)
        start = now
    }

    private func count(_ outcome: ChunkOutcome) {
        let counter = { (outcome: String) in
            Counter(label: "worker_apns_notifications_total", dimensions: [("outcome", outcome)], factory: self.metrics)
        }
        counter("accepted").increment(by: outcome.accepted.count)
        counter("failed").increment(by: outcome.failures.count)
        counter("skipped").increment(by: outcome.skipped)
        counter("superseded").increment(by: outcome.superseded)
        counter("already_active").increment(by: outcome.alreadyActive)
        counter("start_budget").increment(by: outcome.startBudget)
        counter("suspect_token").increment(by: outcome.suspectToken)
        counter("downgraded").increment(by: outcome.downgraded)
    }
}
