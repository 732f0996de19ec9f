import Foundation

/// `{"channel": {...}}` as a device registers or updates itself (Airship's channel shape).
/// On update, a field left out (or null) keeps its value: nothing is deleted implicitly.
public struct ChannelRegistration: Sendable, Equatable, Decodable {
    public var installID: String?
    public var optIn: Bool?
    public var liveActivitiesEnabled: Bool?
    /// Tags of the `device` group; when present they replace that group.
    public var tags: [String]?
    /// Groups named here are replaced; groups not named are kept.
    public var tagGroups: [String: [String]]?
    public var namedUserID: String?
    public var locale: String?
    public var timezone: String?

    public static let deviceTagGroup = "device"

    enum Outer: String, CodingKey, CaseIterable { case channel }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case deviceType = "device_type"
        case installID = "install_id"
        case optIn = "opt_in"
        case liveActivitiesEnabled = "live_activities_enabled"
        case tags
        case tagGroups = "tag_groups"
        case namedUserID = "named_user_id"
        case locale, timezone
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(Outer.self)
        let outer = try decoder.container(keyedBy: Outer.self)
        let channelDecoder = try outer.superDecoder(forKey: .channel)
        try channelDecoder.rejectUnknownKeys(CodingKeys.self)
        let c = try channelDecoder.container(keyedBy: CodingKeys.self)
        if let type = try c.decodeIfPresent(String.self, forKey: .deviceType), type != "ios" {
            throw ValidationError(path: "channel.device_type", rule: "must be 'ios'")
        }
        self.installID = try c.decodeIfPresent(String.self, forKey: .installID)
        self.optIn = try c.decodeIfPresent(Bool.self, forKey: .optIn)
        self.liveActivitiesEnabled = try c.decodeIfPresent(Bool.self, forKey: .liveActivitiesEnabled)
        self.tags = try c.decodeIfPresent([String].self, forKey: .tags)
        self.tagGroups = try c.decodeIfPresent([String: [String]].self, forKey: .tagGroups)
        self.namedUserID = try c.decodeIfPresent(String.self, forKey: .namedUserID)
        self.locale = try c.decodeIfPresent(String.self, forKey: .locale)
        self.timezone = try c.decodeIfPresent(String.self, forKey: .timezone)
        try self.validate()
    }

    public init(installID: String? = nil, optIn: Bool? = nil, tags: [String]? = nil) {
        self.installID = installID
        self.optIn = optIn
        self.tags = tags
    }

    func validate() throws(ValidationError) {
        if let installID { try FieldRules.text(installID, path: "channel.install_id", maxLength: 128) }
        if let namedUserID { try FieldRules.text(namedUserID, path: "channel.named_user_id", maxLength: 128) }
        if let locale { try FieldRules.text(locale, path: "channel.locale", maxLength: 35) }
        if let timezone { try FieldRules.text(timezone, path: "channel.timezone", maxLength: 64) }
        for (index, tag) in (self.tags ?? []).enumerated() {
            try TagRules.tag(tag, path: "channel.tags[\(index)]")
        }
        for (group, tags) in self.tagGroups ?? [:] {
            try TagRules.group(group, path: "channel.tag_groups.\(group)")
            for (index, tag) in tags.enumerated() {
                try TagRules.tag(tag, path: "channel.tag_groups.\(group)[\(index)]")
            }
        }
    }

    /// The tag groups this registration replaces, `tags` folded in as the `device` group.
    public var replacedTagGroups: [String: [String]] {
        var groups = self.tagGroups ?? [:]
        if let tags { groups[Self.deviceTagGroup] = tags }
        return groups
    }
}

public enum TagRules {
    public static func tag(_ tag: String, path: String) throws(ValidationError) {
        guard !tag.isEmpty, tag.utf8.count <= 128 else {
            throw ValidationError(path: path, rule: "must be 1 to 128 bytes")
        }
    }

    public static func group(_ group: String, path: String) throws(ValidationError) {
        guard !group.isEmpty, group.utf8.count <= 64,
            group.utf8.allSatisfy({
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F || $0 == 0x2D
            })
        else { throw ValidationError(path: path, rule: "must be 1 to 64 characters of a-z, 0-9, _ and -") }
    }
}

/// A channel as the lookup API shows it.
public struct ChannelLookup: Sendable, Encodable, Equatable {
    public var channelID: UUID
    public var deviceType: String = "ios"
    public var optIn: Bool
    public var liveActivitiesEnabled: Bool
    public var tags: [String]
    public var tagGroups: [String: [String]]
    public var namedUserID: String?
    public var locale: String?
    public var timezone: String?
    public var created: Date
    public var lastRegistration: Date
    public var liveActivities: [ActivitySummary] = []
    public var pushToStart: [PushToStartSummary] = []

    public init(channelID: UUID, deviceType: String = "ios", optIn: Bool, liveActivitiesEnabled: Bool, tags: [String], tagGroups: [String: [String]], namedUserID: String?, locale: String?, timezone: String?, created: Date, lastRegistration: Date, liveActivities: [ActivitySummary] = [], pushToStart: [PushToStartSummary] = []) {
        self.channelID = channelID
        self.deviceType = deviceType
        self.optIn = optIn
        self.liveActivitiesEnabled = liveActivitiesEnabled
        self.tags = tags
        self.tagGroups = tagGroups
        self.namedUserID = namedUserID
        self.locale = locale
        self.timezone = timezone
        self.created = created
        self.lastRegistration = lastRegistration
        self.liveActivities = liveActivities
        self.pushToStart = pushToStart
    }

    enum CodingKeys: String, CodingKey {
        case liveActivities = "live_activities"
        case pushToStart = "push_to_start"
        case channelID = "channel_id"
        case deviceType = "device_type"
        case optIn = "opt_in"
        case liveActivitiesEnabled = "live_activities_enabled"
        case tags
        case tagGroups = "tag_groups"
        case namedUserID = "named_user_id"
        case locale, timezone, created
        case lastRegistration = "last_registration"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(self.channelID.uuidString.lowercased(), forKey: .channelID)
        try c.encode(self.deviceType, forKey: .deviceType)
        try c.encode(self.optIn, forKey: .optIn)
        try c.encode(self.liveActivitiesEnabled, forKey: .liveActivitiesEnabled)
        try c.encode(self.tags, forKey: .tags)
        try c.encode(self.tagGroups, forKey: .tagGroups)
        try c.encode(self.namedUserID, forKey: .namedUserID)
        try c.encode(self.locale, forKey: .locale)
        try c.encode(self.timezone, forKey: .timezone)
        try c.encode(self.created, forKey: .created)
        try c.encode(self.lastRegistration, forKey: .lastRegistration)
        try c.encode(self.liveActivities, forKey: .liveActivities)
        try c.encode(self.pushToStart, forKey: .pushToStart)
    }
}

/// Channels of one app. Every method takes the app id: a channel of another app is simply not found.
public protocol ChannelStore: Sendable {
    /// Creates the channel, or returns the existing one for the same `install_id` (updated).
    func register(appID: Int64, _ registration: ChannelRegistration) async throws -> (id: UUID, created: Bool)
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

/// What forgetting a channel removed, table by table.
public struct ForgetCounts: Sendable, Encodable, Equatable {
    public var channels: Int
    public var tags: Int
    public var pushToStartTokens: Int
    public var liveActivities: Int
    public var pendingSchedules: Int

    public init(channels: Int, tags: Int, pushToStartTokens: Int, liveActivities: Int, pendingSchedules: Int) {
        self.channels = channels
        self.tags = tags
        self.pushToStartTokens = pushToStartTokens
        self.liveActivities = liveActivities
        self.pendingSchedules = pendingSchedules
    }

    enum CodingKeys: String, CodingKey {
        case channels, tags
        case pushToStartTokens = "push_to_start_tokens"
        case liveActivities = "live_activities"
        case pendingSchedules = "pending_schedules"
    }
}
