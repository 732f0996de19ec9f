/// Exponential backoff with jitter: attempt n waits base * 2^(n-1), capped, then scaled by a factor
/// in [1 - jitter, 1] so that a herd of failures spreads out.
public struct Backoff: Sendable, Equatable {
    public var base: Duration
    public var cap: Duration
    public var jitter: Double

    public init(base: Duration = .seconds(1), cap: Duration = .seconds(300), jitter: Double = 0.5) {
        self.base = base
        self.cap = cap
        self.jitter = min(max(jitter, 0), 1)
    }

    /// `random` is in [0, 1); injectable for tests.
    public func delay(attempt: Int, random: Double) -> Duration {
        let exponent = min(max(attempt - 1, 0), 40)
        let raw = self.base * Double(1 << UInt64(min(exponent, 40)))
        let capped = raw > self.cap ? self.cap : raw
        return capped * (1 - self.jitter * random)
    }

    public func delay(attempt: Int) -> Duration {
        self.delay(attempt: attempt, random: Double.random(in: 0..<1))
    }
}
