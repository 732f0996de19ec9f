/// How many of a pool's bulk connections its sends spread over: as many as the streams it is asked for need, within
/// the configured ceiling (`APNsClientConfiguration.connectionsPerPool`).
///
/// Streams needed follow Little's law: the rate asked of the pool times the round trip. A send asks for its
/// requests at once, so before each send the pool grows at once to hold what is unanswered plus the new requests;
/// once a window (`window`) the answered rate times the measured round trip (with `headroom`) says what a steady
/// flow needs, and when that and the window's peak both fit in fewer connections for `shrinkAfter`, the pool
/// shrinks to them (the connections it no longer uses are closed once idle). At 30 ms and 500 streams a connection
/// carries ~16,600 notifications a second; a pool that sends a few hundred a second keeps one.
///
/// Pure state, no clock of its own: callers pass monotonic seconds. Unit-tested (`PoolSizerTests`).
struct PoolSizer: Sendable {
    let ceiling: Int
    var window = 1.0
    var shrinkAfter = 300.0
    var headroom = 1.25
    private(set) var active = 1
    /// The smoothed round trip in seconds (a stream's first frame out to its answer), once one was measured.
    private(set) var roundTrip: Double?
    private var windowStart: Double?
    private var answeredInWindow = 0
    private var peakDemand = 0
    private var fewerSince: Double?

    init(ceiling: Int) {
        self.ceiling = max(1, ceiling)
    }

    /// `count` requests are about to be sent while `outstanding` others are unanswered; a connection allows
    /// `streamsPerConnection`. Returns the connections to spread them over.
    mutating func willSend(count: Int, outstanding: Int, streamsPerConnection: Int, now: Double) -> Int {
        if self.windowStart == nil { self.windowStart = now }
        let demand = max(0, outstanding) + max(0, count)
        self.peakDemand = max(self.peakDemand, demand)
        let wanted = self.connections(forStreams: Double(demand), streamsPerConnection: streamsPerConnection)
        if wanted > self.active {
            self.active = wanted
            self.fewerSince = nil
        }
        return self.active
    }

    /// `count` answers came back, `roundTrip` seconds each on average (nil: none measured).
    mutating func answered(count: Int, roundTrip: Double?) {
        self.answeredInWindow += max(0, count)
        if let sample = roundTrip, sample >= 0 {
            self.roundTrip = self.roundTrip.map { 0.8 * $0 + 0.2 * sample } ?? sample
        }
    }

    /// Ends the window if `window` has passed, and shrinks if fewer connections did for `shrinkAfter` (never below
    /// what the `outstanding` requests need). Returns the connections to use from now on.
    @discardableResult
    mutating func tick(now: Double, outstanding: Int = 0, streamsPerConnection: Int) -> Int {
        guard let start = self.windowStart else {
            self.windowStart = now
            return self.active
        }
        let elapsed = now - start
        guard elapsed >= self.window else { return self.active }
        let rate = Double(self.answeredInWindow) / elapsed
        let steady = rate * (self.roundTrip ?? 0) * self.headroom
        let wanted = max(
            self.connections(forStreams: steady, streamsPerConnection: streamsPerConnection),
            self.connections(
                forStreams: Double(max(self.peakDemand, outstanding)), streamsPerConnection: streamsPerConnection))
        if wanted < self.active {
            let since = self.fewerSince ?? start
            self.fewerSince = since
            if now - since >= self.shrinkAfter {
                self.active = wanted
                self.fewerSince = nil
            }
        } else {
            self.fewerSince = nil
        }
        self.windowStart = now
        self.answeredInWindow = 0
        self.peakDemand = 0
        return self.active
    }

    private func connections(forStreams streams: Double, streamsPerConnection: Int) -> Int {
        let perConnection = Double(max(1, streamsPerConnection))
        return min(self.ceiling, max(1, Int((streams / perConnection).rounded(.up))))
    }
}
