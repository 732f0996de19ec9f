import Foundation

/// A name's broadcast channel at Apple, as the API shows it (`broadcast_channel`).
public struct BroadcastChannel: Sendable, Equatable, Encodable {
    /// The activity name the channel carries.
    public var name: String
    /// Apple's id (base64, of no fixed length).
    public var channelID: String
    public var storage: BroadcastStorage
    /// The APNs environment it was created in (`production` or `development`).
    public var environment: String
    public var created: Date

    public init(name: String, channelID: String, storage: BroadcastStorage, environment: String, created: Date) {
        self.name = name
        self.channelID = channelID
        self.storage = storage
        self.environment = environment
        self.created = created
    }

    enum CodingKeys: String, CodingKey {
        case name, storage, environment, created
        case channelID = "channel_id"
    }

    /// Apple allows at most this many channels per app and environment.
    public static let limitPerApp = 10_000
}
