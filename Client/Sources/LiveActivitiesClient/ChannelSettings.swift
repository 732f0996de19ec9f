import Foundation

/// What the install tells the gateway about itself on registration (Airship's channel fields). Fields left nil are
/// not sent, so the gateway keeps what it has; tags and the named user may be refused by the app's device
/// permissions (a 403 naming the field).
public struct ChannelSettings: Sendable, Equatable {
    public var optIn: Bool?
    public var liveActivitiesEnabled: Bool?
    public var tags: [String]?
    public var namedUserID: String?
    public var locale: String?
    public var timezone: String?

    public init(
        optIn: Bool? = true, liveActivitiesEnabled: Bool? = nil, tags: [String]? = nil, namedUserID: String? = nil,
        locale: String? = Locale.current.identifier, timezone: String? = TimeZone.current.identifier
    ) {
        self.optIn = optIn
        self.liveActivitiesEnabled = liveActivitiesEnabled
        self.tags = tags
        self.namedUserID = namedUserID
        self.locale = locale
        self.timezone = timezone
    }

    /// The `channel` object of `POST /api/channels` and `PUT /api/channels/{id}`.
    func body(installID: String?) -> [String: Any] {
        var channel: [String: Any] = ["device_type": "ios"]
        if let installID { channel["install_id"] = installID }
        if let optIn { channel["opt_in"] = optIn }
        if let liveActivitiesEnabled { channel["live_activities_enabled"] = liveActivitiesEnabled }
        if let tags { channel["tags"] = tags }
        if let namedUserID { channel["named_user_id"] = namedUserID }
        if let locale { channel["locale"] = locale }
        if let timezone { channel["timezone"] = timezone }
        return ["channel": channel]
    }
}
