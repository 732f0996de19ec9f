import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresStore

/// One chunk's rounds: which targets go, what APNs answered, what is retried.
extension BatchSend {
    /// The chunk's send begins (`now`: invalidations apply only to tokens not registered again since). Held targets
    /// are counted and left out; the rest go on to the superseding check and the order.
    public mutating func chunkStarted(at now: Date) -> Action {
        precondition(self.phase == .started)
        let last = self.chunk[self.chunk.count - 1].channelID
        self.outcome = ChunkOutcome(cursor: last, processed: self.chunk.count, sendStartedAt: now)
        self.attempt = 1
        self.pending = []
        for (index, target) in self.chunk.enumerated() {
            switch target.hold {
            case .none, .budgeted: self.pending.append(index)
            case .downgrade:
                self.outcome.downgraded += 1
                self.pending.append(index)
            case .alreadyActive: self.outcome.alreadyActive += 1
            case .startBudget: self.outcome.startBudget += 1
            case .suspectToken: self.outcome.suspectToken += 1
            }
        }
        return self.checkSuperseders()
    }

    /// The channels among those asked (`findReached`) that a superseding push reaches. In the chunk's first round the
    /// rest are then placed in `PushOrder` against the last push each target was sent.
    public mutating func reached(_ channels: Set<UUID>) -> Action {
        precondition([.started, .readingSuperseders, .findingReached, .redeclaring].contains(self.phase))
        let firstRound = self.attempt == 1
        self.pending.removeAll { index in
            let target = self.chunk[index]
            let decision: TargetDecision =
                channels.contains(target.channelID)
                ? .supersede
                : firstRound ? self.order.decision(for: self.event, lastSent: target.lastSent) : .send
            switch decision {
            case .send: return false
            case .skip: self.outcome.skipped += 1
            case .supersede: self.outcome.superseded += 1
            }
            return true
        }
        guard !self.pending.isEmpty else { return self.record() }
        self.phase = .sending
        return .send(
            Round(
                indexes: self.pending,
                priorities: self.pending.map {
                    self.chunk[$0].hold == .downgrade ? .powerConsiderate : self.priority
                }))
    }

    /// APNs answered the round (`results` in the order of its indexes). `random`, in [0, 1), jitters the backoff.
    public mutating func answered(_ results: [APNsClient.Result], random: Double) -> Action {
        precondition(self.phase == .sending)
        let triage = DeliveryTriage.triage(
            results, indexes: self.pending, finalAttempt: self.attempt >= self.settings.maxAttempts)
        let chunk = self.chunk
        self.outcome.accepted += triage.accepted.map { chunk[$0] }
        self.outcome.budgeted += triage.accepted.filter { chunk[$0].hold == .budgeted }.map { chunk[$0].instanceID }
        self.outcome.failures += triage.failures.map { (chunk[$0.index], $0.record) }
        self.pending = triage.retry
        if let reason = triage.configurationError {
            self.outcome.configurationError = reason
            // What was waiting for a retry is not sent again: the push stops here.
            self.failPending(reason: "stopped")
            return self.record()
        }
        guard !self.pending.isEmpty else { return self.record() }
        var delay = self.settings.backoff.delay(attempt: self.attempt, random: random)
        // APNs asked for fewer requests (429): at least a second before the next round.
        if triage.sawRateLimit { delay = max(delay, .seconds(1)) }
        self.phase = .waiting
        return .wait(delay)
    }

    /// The backoff is over: the retry round is declared in flight first.
    public mutating func waited() -> Action {
        precondition(self.phase == .waiting)
        self.attempt += 1
        self.phase = .redeclaring
        return .declare
    }

    /// The targets still pending fail with `reason` (not sent again).
    mutating func failPending(reason: String) {
        self.outcome.failures += self.pending.map {
            (self.chunk[$0], DeliveryFailure(status: nil, reason: reason, invalidatesToken: false))
        }
        self.pending = []
    }
}
