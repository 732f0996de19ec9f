import Foundation

/// How a call is tried again: transport failures, 429, 500, 502, 503 and 504 are retried with exponential backoff and
/// full jitter, waiting what `Retry-After` says on 429 and 503 when the gateway sends it. Other 4xx answers are never
/// retried.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included (1 = no retry).
    public var maxAttempts: Int
    /// The first retry waits up to this; each further one up to twice the one before, never more than `maxDelay`.
    public var baseDelay: TimeInterval
    public var maxDelay: TimeInterval
    /// A `Retry-After` longer than this is not waited for: the call fails with what the gateway answered.
    public var maxRetryAfter: TimeInterval

    public init(
        maxAttempts: Int = 5, baseDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 30,
        maxRetryAfter: TimeInterval = 300
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// No retries (tests, and calls an app wants to fail fast).
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The wait before attempt `attempt + 1` (`attempt` counts from 1): the gateway's `Retry-After` if it gave one,
    /// else a random time up to the backoff ceiling ("full jitter", so that many devices told to back off at once do
    /// not come back at once). `random` is in 0...1.
    public func delay(afterAttempt attempt: Int, retryAfter: TimeInterval?, random: Double) -> TimeInterval {
        if let retryAfter { return max(0, retryAfter) }
        let ceiling = min(self.maxDelay, self.baseDelay * pow(2, Double(max(0, attempt - 1))))
        return ceiling * min(1, max(0, random))
    }

    /// `Retry-After` as RFC 9110 writes it: delay-seconds or an HTTP-date.
    public static func retryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value), seconds >= 0 { return TimeInterval(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    static func isRetried(status: Int) -> Bool { [429, 500, 502, 503, 504].contains(status) }
    static func honoursRetryAfter(status: Int) -> Bool { status == 429 || status == 503 }
}
