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
