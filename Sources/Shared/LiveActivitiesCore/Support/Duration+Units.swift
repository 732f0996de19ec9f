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
