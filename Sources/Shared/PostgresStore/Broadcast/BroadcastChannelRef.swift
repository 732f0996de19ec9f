import LiveActivitiesCore

/// A name's channel as pushes need it: Apple's id and the storage policy (which decides the expiration rule).
public struct BroadcastChannelRef: Sendable, Equatable {
    public var channelID: String
    public var storage: BroadcastStorage

    public init(channelID: String, storage: BroadcastStorage) {
        self.channelID = channelID
        self.storage = storage
    }
}
