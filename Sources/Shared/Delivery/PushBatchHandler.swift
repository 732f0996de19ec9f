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
/// and leaves out the targets of pushes that superseded this one (`DeliveryLedger+Supersession.swift`).
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

    /// Sends batch `seq` of `push` from its cursor to its end.
    func deliver(_ push: PushForDelivery, seq: Int32, logger: Logger) async throws {
        guard let batch = try await self.ledger.claimBatch(pushID: push.id, seq: seq), batch.state == .queued else {
            return
        }
        try await self.deliver(push, batch: batch, first: nil, logger: logger)
    }

    /// Sends `batch` from its cursor to its end. `first`: its first chunk, already read and declared in flight by the
    /// caller (a fan-out that has just marked the push as sending and found that it fits in one chunk), with the
    /// number of superseding pushes it must honour.
    func deliver(
        _ push: PushForDelivery, batch: PushBatch, first: (targets: [PushTargets.Target], gen: Int)?, logger: Logger
    ) async throws {
        let seq = batch.seq
        let push = try await self.withUpdateBudgets(push)
        guard let (bundleID, credentials) = try await self.deliveries.configuration(appID: push.appID) else {
            throw JobError.permanent("the app no longer exists")
        }
        let topic = APNsRequest.liveActivityTopic(bundleID: bundleID)
        var clock = ContinuousClock.now
        var chunk: [PushTargets.Target]
        var gen: Int
        let deferStamps = self.settings.deferStamps && !batch.sentByFanout
        // A deferred stamp is recorded by id: the select need not read where each row is, and reads one index alone.
        let rowRefs = !(deferStamps && push.targets.event == .update)
        if let first {
            (chunk, gen) = first
        } else {
            chunk = try await self.select(push, after: batch.cursor ?? batch.lower, upTo: batch.upper, rowRefs: rowRefs)
            self.phase("select", since: &clock)
            // Declared after the select: a push that superseded this one before is honoured when the chunk is sent.
            guard let declared = try await self.ledger.declareChunk(pushID: push.id, seq: seq, runner: batch.runner)
            else { return }
            gen = declared
        }
        var superseders = Superseders()
        // The batch was read as queued (or handed in by a caller that has just made it); recording a chunk answers
        // whether it still is, so a cancel or a configuration error stops it after the chunk in flight.
        while let last = chunk.last {
            // The next chunk is read while this one is sent and recorded: its channels all come after this
            // chunk's, so nothing recorded here changes what it reads.
            let full = chunk.count == self.settings.chunkSize
            async let following =
                full ? self.select(push, after: last.channelID, upTo: batch.upper, rowRefs: rowRefs) : []
            clock = ContinuousClock.now
            let outcome = try await self.send(
                chunk, last: last.channelID, push: push, seq: seq, runner: batch.runner, topic: topic,
                credentials: credentials, gen: gen, superseders: &superseders)
            self.phase("send", since: &clock)
            // A chunk shorter than a full one is the batch's last: the batch is finished in the same transaction.
            // Otherwise the record declares the next chunk in flight.
            let next = try await self.ledger.record(
                outcome, push: push, seq: seq, lastOfBatch: !full, deferStamps: deferStamps, runner: batch.runner)
            self.phase("record", since: &clock)
            self.count(outcome)
            if let reason = outcome.configurationError {
                logger.error("push stopped: APNs refused its configuration", metadata: ["reason": "\(reason)"])
                return
            }
            guard full, let next else { return }
            // Shutting down: the chunk is recorded (the cursor with it); the batch goes on elsewhere from there.
            if Task.isShuttingDownGracefully { throw JobError.interrupted }
            gen = next
            chunk = try await following
            self.phase("select", since: &clock)  // only the part the send and record did not hide
        }
        try await self.ledger.finishBatch(pushID: push.id, seq: seq, runner: batch.runner)
    }

    private func withUpdateBudgets(_ push: PushForDelivery) async throws -> PushForDelivery {
        var push = push
        try await push.applyUpdateBudgets(from: self.budgets)
        return push
    }

    /// The next chunk of the batch's targets: channel ids in (after, upTo].
    private func select(_ push: PushForDelivery, after: UUID?, upTo: UUID?, rowRefs: Bool) async throws
        -> [PushTargets.Target]
    {
        try await self.ledger.chunk(
            of: push, after: after, upTo: upTo, limit: self.settings.chunkSize, rowRefs: rowRefs)
    }

    /// Sends the targets of `chunk` that neither a newer push reached nor a superseding push reaches (`PushOrder`),
    /// retrying where APNs says so; each retry round is declared in flight again.
    private func send(
        _ chunk: [PushTargets.Target], last: UUID, push: PushForDelivery, seq: Int32, runner: UUID?, topic: String,
        credentials: APNsCredentials, gen: Int, superseders: inout Superseders
    ) async throws -> ChunkOutcome {
        var outcome = ChunkOutcome(cursor: last, processed: chunk.count, sendStartedAt: Date())
        let reached = try await superseders.reached(chunk, gen: gen, push: push, ledger: self.ledger)
        var pending: [Int] = []
        for (index, target) in chunk.enumerated() {
            switch target.hold {
            case .none, .budgeted: break
            case .downgrade: outcome.downgraded += 1
            case .alreadyActive:
                outcome.alreadyActive += 1
                continue
            case .startBudget:
                outcome.startBudget += 1
                continue
            case .suspectToken:
                outcome.suspectToken += 1
                continue
            }
            let decision =
                reached.contains(target.channelID)
                ? .supersede : push.order.decision(for: push.targets.event, lastSent: target.lastSent)
            switch decision {
            case .send: pending.append(index)
            case .skip: outcome.skipped += 1
            case .supersede: outcome.superseded += 1
            }
        }
        let priority: APNsPriority = push.priority == 5 ? .powerConsiderate : .immediate
        var attempt = 1
        while !pending.isEmpty {
            if attempt > 1 {
                guard let declared = try await self.ledger.declareChunk(pushID: push.id, seq: seq, runner: runner)
                else {
                    // Stopped (a cancel), or claimed by another run that sends this chunk again: no retry round.
                    outcome.failures += pending.map {
                        (chunk[$0], DeliveryFailure(status: nil, reason: "stopped", invalidatesToken: false))
                    }
                    break
                }
                let reached = try await superseders.reached(
                    pending.map { chunk[$0] }, gen: declared, push: push, ledger: self.ledger)
                outcome.superseded += reached.count
                pending.removeAll { reached.contains(chunk[$0].channelID) }
                if pending.isEmpty { break }
            }
            let requests = pending.map {
                APNsRequest(
                    deviceToken: chunk[$0].token, topic: topic, body: push.payload,
                    priority: chunk[$0].hold == .downgrade ? .powerConsiderate : priority)
            }
            let results = await self.apns.send(requests, credentials: credentials)
            let triage = DeliveryTriage.triage(
                results, indexes: pending, finalAttempt: attempt >= self.settings.maxAttempts)
            outcome.accepted += triage.accepted.map { chunk[$0] }
            outcome.budgeted += triage.accepted.lazy.filter { chunk[$0].hold == .budgeted }.map { chunk[$0].instanceID }
            outcome.failures += triage.failures.map { (chunk[$0.index], $0.record) }
            if let reason = triage.configurationError {
                outcome.configurationError = reason
                // What was waiting for a retry is not sent again: the push stops here.
                outcome.failures += triage.retry.map {
                    (
                        chunk[$0],
                        DeliveryFailure(status: nil, reason: "stopped", invalidatesToken: false)
                    )
                }
                break
            }
            pending = triage.retry
            if !pending.isEmpty {
                var delay = self.settings.backoff.delay(attempt: attempt)
                if triage.sawRateLimit { delay = max(delay, .seconds(1)) }
                try await Task.sleep(for: delay)
                attempt += 1
            }
        }
        return outcome
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
