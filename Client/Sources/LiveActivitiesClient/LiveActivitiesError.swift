/// What a call of `GatewayClient` throws.
public enum LiveActivitiesError: Error, Sendable, Equatable {
    /// The gateway refused the call: a 4xx (429 only when its `Retry-After` is longer than the policy's
    /// `maxRetryAfter`); fix the call or the data.
    case rejected(GatewayRejection)
    /// Every attempt failed with a retried status or a transport error; the last one is given.
    case exhausted(attempts: Int, lastStatus: Int?, lastError: String?)
    /// The gateway answered something this client cannot read (a 2xx without the expected fields).
    case invalidAnswer(String)
    /// An empty token.
    case invalidToken
    /// The install was forgotten (`forget()`); `register()` starts a new one.
    case forgotten
    /// The install store could not be read or written.
    case store(String)
}
