import Metrics

extension Timer {
    /// Records a `Duration` measured with `ContinuousClock`.
    public func recordInterval(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
