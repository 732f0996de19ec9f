import Foundation

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

    public init(
        channelID: UUID, deviceType: String = "ios", optIn: Bool, liveActivitiesEnabled: Bool, tags: [String],
        tagGroups: [String: [String]], namedUserID: String?, locale: String?, timezone: String?, created: Date,
        lastRegistration: Date, liveActivities: [ActivitySummary] = [], pushToStart: [PushToStartSummary] = []
    ) {
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
