import Foundation

/// Channels of one app. Every method takes the app id: a channel of another app is simply not found.
public protocol ChannelStore: Sendable {
    /// Creates the channel with a secret, or updates the existing one for the same `install_id` when `proof` allows.
    func register(appID: Int64, _ registration: ChannelRegistration, proof: ChannelProof) async throws
        -> ChannelRegistrationResult
    /// Whether the app has the channel and `proof` may act on it.
    func verify(appID: Int64, channelID: UUID, proof: ChannelProof) async throws -> Bool
    /// False when the app has no such channel.
    func update(appID: Int64, channelID: UUID, _ registration: ChannelRegistration) async throws -> Bool
    func lookup(appID: Int64, channelID: UUID) async throws -> ChannelLookup?
    /// Deletes the channel and everything under it in one transaction (GDPR); nil when not found.
    func forget(appID: Int64, channelID: UUID) async throws -> ForgetCounts?
    /// Applies tag changes to the listed channels of the app; returns the ids that were not found.
    func changeTags(appID: Int64, _ change: TagChange) async throws -> (updated: Int, unknown: [UUID])
    /// Removes the channel's named user; false when the channel was not found.
    func removeNamedUser(appID: Int64, channelID: UUID) async throws -> Bool
}
