/// When the gateway sheds load, as a pure state machine (CoDel's idea, applied to requests): it watches how long the
/// requests it serves take, over windows of `interval`; when even the fastest request of a window took longer than
/// `target`, that is a standing queue, not a burst, and the next window sheds. A window with a fast request ends it.
struct SheddingWindow: Sendable {
    let target: Duration
    let interval: Duration
    private(set) var overloaded = false
    private var start: ContinuousClock.Instant
    private var fastest: Duration?

    init(target: Duration, interval: Duration = .milliseconds(100), now: ContinuousClock.Instant) {
        self.target = target
        self.interval = interval
        self.start = now
    }

    /// A request served in `elapsed`, finishing at `now`.
    mutating func served(in elapsed: Duration, now: ContinuousClock.Instant) {
        self.fastest = min(self.fastest ?? elapsed, elapsed)
        guard now - self.start >= self.interval else { return }
        self.overloaded = (self.fastest ?? .zero) > self.target
        self.start = now
        self.fastest = nil
    }
}
