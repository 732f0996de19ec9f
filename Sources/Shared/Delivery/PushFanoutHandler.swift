import Foundation
import LiveActivitiesCore
import Logging
import Metrics
import PostgresStore

/// `push.fanout`: resolves a push's audience once, splits it by channel id into batch jobs any worker can claim.
struct PushFanoutHandler: JobHandler {
    let database: Database
    let ledger: DeliveryLedger
    let settings: DeliverySettings
    let metrics: any MetricsFactory
    /// Sends a push that fits in one chunk right here, instead of through a second job (single-activity updates).
    /// This job's lease then covers the send: a crash re-runs this job, which resumes the batch from its cursor.
    let sender: PushBatchHandler
    /// A push's broadcast request (delivery `broadcast` or `both`), before any token request.
    let broadcaster: BroadcastSender

    func run(_ job: ClaimedJob, logger: Logger) async throws {
        let reference = try job.payload(as: PushFanoutJob.self)
        let pushID = reference.pushID
        var logger = logger
        logger[metadataKey: "push_id"] = "\(pushID.uuidString.lowercased())"
        // A first run takes the push from its job. A re-run reads it: it may be sending already. If it was cancelled
        // meanwhile, the statement that claims it for sending (first chunk or fan-out) finds it no longer queued.
        var push: PushForDelivery
        // Whether the push's acceptance order is known (a snapshot of an earlier build has none).
        let ordered: Bool
        if job.attempt == 1, let carried = reference.push,
            let snapshot = PushForDelivery(id: pushID, appID: job.appID, snapshot: carried)
        {
            push = snapshot
            ordered = carried.seq != nil
        } else {
            guard let read = try await self.ledger.push(pushID) else { return }
            push = read
            ordered = true
        }
        if push.state == .sending {
            // A re-run after a crash: finish the batch this job was sending itself, if it was one.
            if let batch = try await self.ledger.batch(pushID: pushID, appID: push.appID, seq: 0), batch.sentByFanout {
                try await self.sender.deliver(push, seq: 0, logger: logger)
            }
            return
        }
        guard push.state == .queued else { return }
        if push.route != .tokens {
            // One request for every subscriber; with `both`, tokens follow for the instances not subscribed.
            try await self.broadcaster.send(push, logger: logger)
            if case .broadcast = push.route { return }
        }
        // Applied once, here: the first chunk's select needs them, and the batch sent from here takes the push as is.
        try await push.applyUpdateBudgets(from: self.sender.budgets)
        let started = ContinuousClock.now
        // Most pushes are small (one activity, one user): reading the first chunk settles whether the push fits in
        // one, and then that chunk is what gets sent, with no count of the audience and no second read.
        // A push that fits in one chunk is recorded as sending, with its one batch, by the same statement.
        // Before, older unfinished pushes of the same name leave the targets this one reaches to it, once their
        // chunks in flight are answered (`PushSupersession`); the first chunk's statement finds them.
        let supersession = PushSupersession(ledger: self.ledger)
        let firstChunkSize = min(self.settings.chunkSize, self.settings.firstChunkSize)
        let first: [PushTargets.Target]
        let superseding: Int?
        if ordered {
            (first, superseding) = try await supersession.firstChunk(
                of: push, limit: firstChunkSize, logger: logger)
        } else {
            push.seq = try await supersession.supersede(for: push, logger: logger).seq
            (first, superseding) = try await self.ledger.firstChunk(of: push, limit: firstChunkSize)
        }
        let decision = FanoutDecision.after(
            first: first.map(\.channelID), superseding: superseding, chunkSize: firstChunkSize,
            batchSize: self.settings.batchSize)
        let plan: BatchPlan
        switch decision {
        case .recordEmpty, .notClaimed, .sendHere:
            self.resolved(since: started)
            logger.debug(
                "push resolved to one chunk", metadata: ["app_id": "\(push.appID)", "targeted": "\(first.count)"])
            if decision == .recordEmpty {
                _ = try await self.ledger.recordFanout(push: push, plan: .empty)
            }
            guard case .sendHere(let superseding) = decision else { return }
            var sending = push
            sending.state = .sending
            try await self.sender.deliver(
                sending, batch: .sentByFanout(pushID: push.id), first: (first, superseding), logger: logger)
            return
        case .batches(let estimated):
            plan = estimated
        case .countedBatches(let sampled, let reach):
            plan = try await push.targets.batchPlan(
                batchSize: self.settings.batchSize, sampled: sampled, reach: reach, on: self.database.client,
                logger: self.database.logger)
        }
        self.resolved(since: started)
        let recorded = try await self.ledger.recordFanout(push: push, plan: plan)
        logger.debug(
            "push fanned out",
            metadata: [
                "app_id": "\(push.appID)", "targeted": "\(plan.total)", "batches": "\(plan.sizes.count)",
                "estimated": "\(plan.estimated)",
                "resolve_ms": "\((ContinuousClock.now - started).seconds * 1000)", "recorded": "\(recorded)",
            ])
    }

    private func resolved(since started: ContinuousClock.Instant) {
        Timer(label: "worker_push_phase_seconds", dimensions: [("phase", "resolve")], factory: self.metrics)
            .recordInterval(ContinuousClock.now - started)
    }
}
