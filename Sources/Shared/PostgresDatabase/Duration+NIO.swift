import LiveActivitiesCore
import Metrics
import NIOCore

/// NIO's timers take `TimeAmount`; configuration is in `Duration`.
extension TimeAmount {
    init(_ duration: Duration) {
        self = .nanoseconds(duration.nanoseconds)
    }
}

extension Timer {
    /// Records a `Duration` measured with `ContinuousClock`.
    public func recordInterval(_ duration: Duration) {
        self.recordNanoseconds(duration.nanoseconds)
    }
}
