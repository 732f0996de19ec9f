import Foundation

/// What a registration (`POST /api/channels`) did.
public enum ChannelRegistrationResult: Sendable, Equatable {
    /// A new channel, and its secret, returned this once.
    case created(UUID, secret: String)
    /// The install id's channel, updated: the caller proved it may (the master secret, or the channel's secret).
    case updated(UUID)
    /// A channel from before channel secrets, claimed by this registration: its new secret, returned this once.
    case claimed(UUID, secret: String)
    /// The install id has a channel whose secret the call did not present: nothing was changed or revealed.
    case refused
}
