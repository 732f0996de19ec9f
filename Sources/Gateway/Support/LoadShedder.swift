import Synchronization

/// Sheds `/api` requests before their latency grows without bound (GATEWAY_SHED_TARGET_MS, off unless set): while the
/// `SheddingWindow` says the served requests queue, a request beyond the first `floor` in flight is answered 503
/// with `Retry-After: 1` at once, with no database work. The requests still admitted keep measuring, so the gateway
/// stops shedding within a window of the load falling.
final class LoadShedder: Sendable {
    let floor: Int
    private let inFlight = Atomic<Int>(0)
    private let window: Mutex<SheddingWindow>

    init(target: Duration, floor: Int) {
        self.floor = floor
        self.window = Mutex(SheddingWindow(target: target, now: .now))
    }

    /// Whether to serve a request now; a true answer must be followed by `finished(after:)`.
    func admit() -> Bool {
        let count = self.inFlight.wrappingAdd(1, ordering: .relaxed).newValue
        if count > self.floor, self.window.withLock({ $0.overloaded }) {
            self.inFlight.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func finished(after elapsed: Duration) {
        self.inFlight.wrappingSubtract(1, ordering: .relaxed)
        let now = ContinuousClock.now
        self.window.withLock { $0.served(in: elapsed, now: now) }
    }
}
