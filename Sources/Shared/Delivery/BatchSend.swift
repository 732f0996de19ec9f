import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresStore

/// The decisions of one batch's send, without I/O, clocks or randomness (postgres-nio's pattern): one `mutating`
/// method per event, each answering the action its caller (`PushBatchHandler`) runs next. It decides the order of
/// select, declare, send and record; which targets of a chunk go (held, skipped, superseded or sent, and at which
/// priority); what is retried and after how long; when a retry round is declared in flight again; when the batch ends.
///
/// A batch sends its chunks one after the other. The next chunk is read while the current one is sent and recorded
/// (its channels all come after this chunk's, so nothing recorded changes what it reads). A chunk shorter than a full
/// one is the batch's last: its record finishes the batch. Every chunk, and every retry round, is declared in flight
/// before it is sent, and leaves out the targets of the pushes that superseded this one by then.
public struct BatchSend {
    public struct Settings: Sendable {
        public var chunkSize: Int
        public var maxAttempts: Int
        public var backoff: Backoff

        public init(chunkSize: Int, maxAttempts: Int, backoff: Backoff) {
            self.chunkSize = chunkSize
            self.maxAttempts = maxAttempts
            self.backoff = backoff
        }
    }

    /// One round of APNs requests: targets of the chunk (by index) and the priority each goes at.
    public struct Round: Sendable, Equatable {
        public var indexes: [Int]
        public var priorities: [APNsPriority]
    }

    public enum Action {
        /// Read the batch's next chunk, channel ids after this one (`selected(_:)`).
        case select(after: UUID?)
        /// Declare the chunk, or its retry round, in flight (`declared(superseding:)`).
        case declare
        /// Send the current chunk (`chunk`); read the next one after `prefetchAfter` meanwhile, if set, to be taken
        /// on `.takeNext`. Then `chunkStarted(at:)`.
        case startChunk(prefetchAfter: UUID?)
        /// Read the audiences of the pushes that supersede this one (`supersedersRead(count:)`).
        case readSuperseders
        /// Which of these channels a superseding push reaches (`reached(_:)`).
        case findReached([UUID])
        /// Send these targets to APNs (`answered(_:random:)`).
        case send(Round)
        /// Wait this long before the retry round (`waited()`).
        case wait(Duration)
        /// Write the chunk's outcome; `lastOfBatch` finishes the batch with it (`recorded(superseding:shuttingDown:)`).
        case record(ChunkOutcome, lastOfBatch: Bool)
        /// Take the chunk read meanwhile (`selected(_:)`).
        case takeNext
        /// Mark the batch finished; then the end.
        case finishBatch
        /// The end: the last chunk's record finished the batch, or the batch no longer sends (a cancel, or another
        /// run claimed it).
        case end
        /// The end: APNs refused the push's configuration, which the record failed the push for.
        case refused(reason: String)
        /// Shutting down: the chunk is recorded (the cursor with it); the batch goes on elsewhere from there.
        case interrupt
    }

    enum Phase: Equatable {
        case idle, selecting, declaring, started, readingSuperseders, findingReached, sending, waiting, redeclaring
        case recording, takingNext, ended
    }

    let settings: Settings
    let event: LiveActivityNotification.Event
    let order: PushOrder
    let priority: APNsPriority
    var phase = Phase.idle
    /// Where the batch starts: its cursor, or its lower bound.
    private let resumeAfter: UUID?
    private var first: (targets: [PushTargets.Target], superseding: Int)?
    /// The chunk being sent.
    public private(set) var chunk: [PushTargets.Target] = []
    private var full = false
    /// How many pushes supersede this one, as the batch row said when the chunk (or round) was declared.
    private var superseding = 0
    /// The superseding count whose pushes' audiences were read, and whether there were any.
    private var honoured = 0
    private var haveSuperseders = false
    /// The current chunk's outcome so far (set when the chunk starts).
    var outcome = ChunkOutcome(
        cursor: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), processed: 0,
        sendStartedAt: Date(timeIntervalSince1970: 0))
    /// The chunk's targets (indexes) still to send in this round.
    var pending: [Int] = []
    var attempt = 1

    /// - Parameters:
    ///   - priority: the push's APNs priority (10 or 5).
    ///   - resumeAfter: where the batch starts, its cursor or else its lower bound.
    ///   - first: the batch's first chunk, already read and declared in flight by the caller (a fan-out that has just
    ///     claimed the push and found that it fits in one chunk), with the superseding count it declared.
    public init(
        event: LiveActivityNotification.Event, order: PushOrder, priority: Int16, resumeAfter: UUID?,
        first: (targets: [PushTargets.Target], superseding: Int)?, settings: Settings
    ) {
        self.settings = settings
        self.event = event
        self.order = order
        self.priority = priority == 5 ? .powerConsiderate : .immediate
        self.resumeAfter = resumeAfter
        self.first = first
    }

    public mutating func start() -> Action {
        precondition(self.phase == .idle)
        guard let first = self.first else {
            self.phase = .selecting
            return .select(after: self.resumeAfter)
        }
        self.first = nil
        self.chunk = first.targets
        self.superseding = first.superseding
        return self.beginChunk()
    }

    /// A chunk was read: the first one (which is declared next) or the one read meanwhile.
    public mutating func selected(_ targets: [PushTargets.Target]) -> Action {
        self.chunk = targets
        switch self.phase {
        case .selecting:
            // Declared after the select: a push that superseded this one before is honoured when the chunk is sent.
            self.phase = .declaring
            return .declare
        case .takingNext:
            return self.beginChunk()
        default:
            preconditionFailure("selected in \(self.phase)")
        }
    }

    /// The batch row answered a declaration: the superseding count, or nil when the batch no longer sends.
    public mutating func declared(superseding: Int?) -> Action {
        switch self.phase {
        case .declaring:
            guard let superseding else { return self.ended(.end) }
            self.superseding = superseding
            return self.beginChunk()
        case .redeclaring:
            guard let superseding else {
                // Stopped (a cancel), or claimed by another run that sends this chunk again: no retry round.
                self.failPending(reason: "stopped")
                return self.record()
            }
            self.superseding = superseding
            return self.checkSuperseders()
        default:
            preconditionFailure("declared in \(self.phase)")
        }
    }

    /// The chunk's record was written: `superseding` is the next chunk's count, nil once the batch stopped.
    public mutating func recorded(superseding next: Int?, shuttingDown: Bool) -> Action {
        precondition(self.phase == .recording)
        if let reason = self.outcome.configurationError { return self.ended(.refused(reason: reason)) }
        guard self.full, let next else { return self.ended(.end) }
        if shuttingDown { return self.ended(.interrupt) }
        self.superseding = next
        self.phase = .takingNext
        return .takeNext
    }

    private mutating func beginChunk() -> Action {
        guard let last = self.chunk.last else { return self.ended(.finishBatch) }
        self.full = self.chunk.count == self.settings.chunkSize
        self.phase = .started
        return .startChunk(prefetchAfter: self.full ? last.channelID : nil)
    }

    mutating func record() -> Action {
        self.phase = .recording
        return .record(self.outcome, lastOfBatch: !self.full)
    }

    private mutating func ended(_ action: Action) -> Action {
        self.phase = .ended
        return action
    }
}

extension BatchSend {
    /// The superseding pushes' audiences (`readSuperseders`) are read again only when the count has grown: no
    /// statement while nothing superseded the push.
    mutating func checkSuperseders() -> Action {
        if self.pending.isEmpty { return self.record() }
        if self.superseding > self.honoured {
            self.phase = .readingSuperseders
            return .readSuperseders
        }
        return self.afterSuperseders()
    }

    /// The audiences of the pushes that supersede this one were read: `count` of them.
    public mutating func supersedersRead(count: Int) -> Action {
        precondition(self.phase == .readingSuperseders)
        self.honoured = self.superseding
        self.haveSuperseders = count > 0
        return self.afterSuperseders()
    }

    private mutating func afterSuperseders() -> Action {
        guard self.haveSuperseders else { return self.reached([]) }
        self.phase = .findingReached
        return .findReached(self.pending.map { self.chunk[$0].channelID })
    }
}
