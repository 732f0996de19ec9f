import Foundation

/// A tracked instance as the channel lookup shows it (tokens are never shown).
public struct ActivitySummary: Sendable, Encodable, Equatable {
    public var name: String
    public var attributesType: String
    public var systemActivityID: String
    public var state: String
    public var started: Date
    public var lastUpdate: Date?

    public init(
        name: String, attributesType: String, systemActivityID: String, state: String, started: Date, lastUpdate: Date?
    ) {
        self.name = name
        self.attributesType = attributesType
        self.systemActivityID = systemActivityID
        self.state = state
        self.started = started
        self.lastUpdate = lastUpdate
    }

    enum CodingKeys: String, CodingKey {
        case name
        case attributesType = "attributes_type"
        case systemActivityID = "system_activity_id"
        case state, started
        case lastUpdate = "last_update"
    }
}

/// A push-to-start registration as the channel lookup shows it.
public struct PushToStartSummary: Sendable, Encodable, Equatable {
    public var attributesType: String
    /// `active`, `suspect` (its last starts were accepted and none started) or `invalid`.
    public var state: String
    public var updated: Date
    /// When the token was first registered (its age).
    public var registered: Date?
    /// What became of the last start sent to it: `started`, `not_started`, `pending`; nil before any.
    public var lastStart: String?

    public init(
        attributesType: String, state: String, updated: Date, registered: Date? = nil, lastStart: String? = nil
    ) {
        self.attributesType = attributesType
        self.state = state
        self.updated = updated
        self.registered = registered
        self.lastStart = lastStart
    }

    enum CodingKeys: String, CodingKey {
        case attributesType = "attributes_type"
        case state, updated, registered
        case lastStart = "last_start"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(self.attributesType, forKey: .attributesType)
        try c.encode(self.state, forKey: .state)
        try c.encode(self.updated, forKey: .updated)
        try c.encode(self.registered, forKey: .registered)
        try c.encode(self.lastStart, forKey: .lastStart)
    }
}

public enum RegistryError: Error, Equatable, Sendable {
    /// The channel does not exist in this app.
    case channelNotFound
    /// The system activity id belongs to an instance that has ended.
    case activityEnded(systemActivityID: String)
}

/// How a push-to-start registration changed the stored token.
public enum PushToStartResult: String, Sendable {
    case created, replaced, unchanged
}

/// Push-to-start tokens and live-activity instances of one app's channels. Every call is one transaction and
/// throws `RegistryError.channelNotFound` for a channel of another app.
public protocol ActivityStore: Sendable {
    func setPushToStart(appID: Int64, channelID: UUID, attributesType: String, _ registration: PushToStartRegistration)
        async throws
        -> PushToStartResult
    /// How many tokens were deleted (0 or 1).
    func deletePushToStart(appID: Int64, channelID: UUID, attributesType: String) async throws -> Int
    func track(appID: Int64, channelID: UUID, name: String, _ tracking: ActivityTracking, proof: ChannelProof)
        async throws
        -> ActivityTrackDecision
    /// The device reports an instance under `name` ended (`ActivityEnd`): ends the current instance (only if its
    /// system activity id is the one given, when one is), recording when the device saw it end and whether it was
    /// dismissed; a dismissal given with a system activity id is also recorded on that instance once it has ended.
    /// An `at` before the instance started is taken as its start (a device's clock may lag the gateway's).
    func untrack(appID: Int64, channelID: UUID, name: String, _ end: ActivityEnd) async throws -> ActivityEndResult
    /// Ends every current instance whose system activity id is not listed (only of `attributesTypes`, when given);
    /// how many ended.
    func reconcile(appID: Int64, channelID: UUID, keeping systemActivityIDs: [String], attributesTypes: [String]?)
        async throws -> Int
    /// Current instances (active or invalid) and push-to-start registrations, for the lookup.
    func summaries(appID: Int64, channelID: UUID) async throws -> ([ActivitySummary], [PushToStartSummary])
}
