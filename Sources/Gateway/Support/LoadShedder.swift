import LiveActivitiesCore
import Logging
import Synchronization

/// Sheds `/api` requests before their latency grows without bound (GATEWAY_SHED_TARGET_MS, off unless set): a request
/// beyond the `ConcurrencyLimit` is answered 503 with `Retry-After: 1` at once, with no database work. The limit
/// starts high and only falls while the served requests queue; the requests admitted keep measuring, and each fast
/// window raises it by an eighth; below it nothing is shed.
///
/// Shed requests are logged as one warning a second with their count, not one line each.
final class LoadShedder: Sendable {
    let logger: Logger
    private let inFlight = Atomic<Int>(0)
    /// `ConcurrencyLimit.limit`, read by every request without the lock.
    private let limit: Atomic<Int>
    private let state: Mutex<ConcurrencyLimit>
    /// Requests shed since the last warning, and when that was.
    private let shedSinceLog = Mutex<(count: Int, since: ContinuousClock.Instant)>((0, .now))

    init(target: Duration, floor: Int, logger: Logger = Logger(label: "gateway.shedding")) {
        self.logger = logger
        let state = ConcurrencyLimit(target: target, floor: floor, now: .now)
        self.limit = Atomic(state.limit)
        self.state = Mutex(state)
    }

    /// Whether to serve a request now; a true answer must be followed by `finished(after:)`.
    func admit() -> Bool {
        let count = self.inFlight.wrappingAdd(1, ordering: .relaxed).newValue
        if count > self.limit.load(ordering: .relaxed) {
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
                metadata: [
                    "shed": "\(count)", "seconds": "\((elapsed.seconds * 10).rounded() / 10)",
                    "limit": "\(self.limit.load(ordering: .relaxed))",
                ])
        }
    }

    func finished(after elapsed: Duration) {
        let count = self.inFlight.wrappingSubtract(1, ordering: .relaxed).oldValue
        let now = ContinuousClock.now
        self.state.withLock { state in
            state.served(in: elapsed, inFlight: count, now: now)
            // Stored under the lock: two requests finishing together cannot store their limits out of order.
            self.limit.store(state.limit, ordering: .relaxed)
        }
    }
}
