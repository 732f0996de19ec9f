import NIOCore

// The transport's own conversions (it depends on nothing of the gateway's modules).
extension Duration {
    /// The duration in (fractional) seconds.
    var seconds: Double {
        let (s, atto) = self.components
        return Double(s) + Double(atto) / 1e18
    }
}

/// NIO's timers take `TimeAmount`; configuration is in `Duration`.
extension TimeAmount {
    init(_ duration: Duration) {
        let (s, atto) = duration.components
        self = .nanoseconds(s * 1_000_000_000 + atto / 1_000_000_000)
    }
}
