import LiveActivitiesCore
import Logging
import Synchronization

/// Sheds `/api` requests before their latency grows without bound (GATEWAY_SHED_TARGET_MS, off unless set): while the
/// `SheddingWindow` says the served requests queue, a request beyond the first `floor` in flight is answered 503
/// with `Retry-After: 1` at once, with no database work. The requests still admitted keep measuring, so the gateway
/// stops shedding within a window of the load falling.
///
/// Shed requests are logged as one warning a second with their count, not one line each.
final class LoadShedder: Sendable {
    let floor: Int
    let logger: Logger
    private let inFlight = Atomic<Int>(0)
    private let window: Mutex<SheddingWindow>
    /// Requests shed since the last warning, and when that was.
    private let shedSinceLog = Mutex<(count: Int, since: ContinuousClock.Instant)>((0, .now))

    init(target: Duration, floor: Int, logger: Logger = Logger(label: "gateway.shedding")) {
        self.floor = floor
        self.logger = logger
        self.window = Mutex(SheddingWindow(target: target, now: .now))
    }

    /// Whether to serve a request now; a true answer must be followed by `finished(after:)`.
    func admit() -> Bool {
        let count = self.inFlight.wrappingAdd(1, ordering: .relaxed).newValue
        if count > self.floor, self.window.withLock({ $0.overloaded }) {
            self.inFlight.wrappingSubtract(1, ordering: .relaxed)
            self.shed()
            return false
        }
        return true
    }

    private func shed() {
        let now = ContinuousClock.now
        let report: (Int, Duration)? = self.shedSinceLog.withLock { state in
            state.count += 1
            guard now - state.since >= .seconds(1) else { return nil }
            defer { state = (0, now) }
            return (state.count, now - state.since)
        }
        if let (count, elapsed) = report {
            self.logger.warning(
                "shedding load: requests answered 503",
                metadata: ["shed": "\(count)", "seconds": "\((elapsed.seconds * 10).rounded() / 10)"])
        }
    }

    func finished(after elapsed: Duration) {
        self.inFlight.wrappingSubtract(1, ordering: .relaxed)
        let now = ContinuousClock.now
        self.window.withLock { $0.served(in: elapsed, now: now) }
    }
}
