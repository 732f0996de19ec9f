import DequeModule

/// How many streams one APNs connection may have open, and which waiting requests start next.
///
/// A new token-auth connection gets ONE stream until a request with a valid provider token has been
/// answered; from then on the peer's `SETTINGS_MAX_CONCURRENT_STREAMS` (capped by our own maximum).
/// Pure state: no I/O, unit-tested; the connection drives it on its event loop.
struct StreamGate<ID: Hashable>: Sendable where ID: Sendable {
    private(set) var authenticated = false
    private(set) var peerMaxStreams: Int?
    private(set) var inFlight = 0
    private(set) var pending = Deque<ID>()
    let localMaxStreams: Int

    init(localMaxStreams: Int) {
        self.localMaxStreams = max(1, localMaxStreams)
    }

    /// Streams allowed at once right now.
    var limit: Int {
        guard self.authenticated else { return 1 }
        return min(self.peerMaxStreams ?? self.localMaxStreams, self.localMaxStreams)
    }

    var isIdle: Bool { self.inFlight == 0 && self.pending.isEmpty }

    mutating func enqueue(_ id: ID) { self.pending.append(id) }

    /// Put back at the front (a request that must be sent again keeps its place).
    mutating func requeueFirst(_ id: ID) { self.pending.prepend(id) }

    mutating func remove(_ id: ID) -> Bool {
        guard let index = self.pending.firstIndex(of: id) else { return false }
        self.pending.remove(at: index)
        return true
    }

    /// The next request to start, if a stream is free; it counts as in flight until `finished`.
    mutating func startNext() -> ID? {
        guard self.inFlight < self.limit, let next = self.pending.popFirst() else { return nil }
        self.inFlight += 1
        return next
    }

    /// A stream ended; `authenticated` when its answer shows the provider token was accepted.
    mutating func finished(authenticated: Bool) {
        self.inFlight = max(0, self.inFlight - 1)
        if authenticated { self.authenticated = true }
    }

    mutating func peerSettings(maxConcurrentStreams: Int) {
        self.peerMaxStreams = max(0, maxConcurrentStreams)
    }

    /// A new connection starts over: unauthenticated, no peer settings, nothing in flight.
    mutating func connectionReplaced() {
        self.authenticated = false
        self.peerMaxStreams = nil
        self.inFlight = 0
    }

    mutating func drainPending() -> [ID] {
        defer { self.pending.removeAll() }
        return Array(self.pending)
    }
}
