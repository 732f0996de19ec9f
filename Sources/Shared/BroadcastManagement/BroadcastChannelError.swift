import LiveActivitiesCore

/// Why a broadcast channel could not be created or deleted at Apple.
public enum BroadcastChannelError: Error, Sendable, Equatable {
    /// The app has `limit` channels in its environment (Apple's ceiling, `CannotCreateChannelConfig`).
    case limitReached(limit: Int)
    /// The name has a channel with another storage policy; Apple cannot change a channel's policy.
    case storageMismatch(existing: BroadcastStorage)
    /// Apple refused the request (`FeatureNotEnabled`, an auth reason, ...).
    case refused(status: Int, reason: String)
    /// Apple could not be reached or did not answer in time.
    case unreachable(String)
    /// The app has no APNs key (deleted meanwhile).
    case noCredentials
}
