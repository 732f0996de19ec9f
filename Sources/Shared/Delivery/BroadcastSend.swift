import LiveActivitiesCore
import PostgresStore

/// The decisions of one push's broadcast (`BroadcastSender` runs them): wait for the channel's turn, then send and
/// retry what Apple asks to retry. Pure: the caller claims, sends, sleeps and records; the time waited and the
/// backoff's jitter are passed in.
struct BroadcastSend {
    /// Apple's answer to a broadcast request, or what stood for it (no status: the request failed in transport).
    struct Answer: Equatable {
        var status: Int?
        var reason: String?
        var uniqueID: String?
    }

    /// What to do with the channel's answer to a claim (`BroadcastLedger.claim`).
    enum TurnAction: Equatable {
        /// Another push's broadcast is in flight on the channel: claim again after this pause.
        case pause(Duration)
        /// This push's turn (or the holder's lease has lapsed by now): send.
        case send
        /// Answered before (a re-run after a crash), or canceled: nothing to do.
        case stop
        /// Not sent: record this reason on the push, counted as `outcome`.
        case record(reason: String, outcome: String)
    }

    /// What to do after an attempt.
    enum SendAction: Equatable {
        /// Send again after this pause.
        case retry(after: Duration)
        /// Final: record this answer on the push.
        case record(Answer)
    }

    /// How long a push waits for the broadcast in flight before it on the same channel (beyond its lease, the
    /// channel is free again).
    static let turnDeadline: Duration = BroadcastLedger.lease + .seconds(5)

    let maxAttempts: Int
    let backoff: Backoff
    private var pause = Duration.milliseconds(2)
    private(set) var attempts = 0

    init(maxAttempts: Int, backoff: Backoff) {
        self.maxAttempts = max(1, maxAttempts)
        self.backoff = backoff
    }

    /// The ledger answered a claim `elapsed` after the first one.
    mutating func claimed(_ claim: BroadcastClaim, elapsed: Duration) -> TurnAction {
        switch claim {
        case .claimed: return .send
        case .finished: return .stop
        case .superseded: return .record(reason: BroadcastLedger.supersededReason, outcome: "superseded")
        case .channelGone: return .record(reason: "channel_deleted", outcome: "error")
        case .busy:
            guard elapsed < Self.turnDeadline else { return .send }
            let pause = self.pause
            self.pause = min(pause * 2, .milliseconds(50))
            return .pause(pause)
        }
    }

    /// An attempt ended with `answer`; `random` in [0, 1) is the backoff's jitter.
    mutating func answered(_ answer: Answer, random: Double) -> SendAction {
        self.attempts += 1
        // Apple's status table ("Handling notification responses from APNs"): "429 The server received too many
        // requests for the same device token.", "500 Internal server error.", "503 The server is shutting down and
        // unavailable." Those describe the server's state, not the request, so they are sent again; every other
        // status describes the request and is final. A request that failed in transport is sent again too.
        let retryable = answer.status.map { [429, 500, 503].contains($0) } ?? true
        guard retryable, self.attempts < self.maxAttempts else { return .record(answer) }
        return .retry(after: self.backoff.delay(attempt: self.attempts, random: random))
    }
}
