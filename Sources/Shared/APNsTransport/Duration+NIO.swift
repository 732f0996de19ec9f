import NIOCore

/// NIO's timers take `TimeAmount`; configuration is in `Duration`.
extension TimeAmount {
    init(_ duration: Duration) {
        let (s, atto) = duration.components
        self = .nanoseconds(s * 1_000_000_000 + atto / 1_000_000_000)
    }
}
