import Metrics
import NIOCore

extension Duration {
    /// The duration in (fractional) seconds.
    public var seconds: Double {
        let (s, atto) = self.components
        return Double(s) + Double(atto) / 1e18
    }

    /// The duration in whole nanoseconds.
    public var nanoseconds: Int64 {
        let (s, atto) = self.components
        return s * 1_000_000_000 + atto / 1_000_000_000
    }
}

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
