/// What the client keeps across launches: the install's stable id, and the channel the gateway gave it with the
/// channel's secret (answered once, presented on every channel call).
public struct InstallRecord: Codable, Sendable, Equatable {
    public var installID: String
    public var channelID: String?
    public var channelSecret: String?
    /// The last `live_activities_enabled` the gateway was told (so a launch tells it only changes).
    public var liveActivitiesEnabled: Bool?
    /// Activity id -> broadcast channel id, for activities started on a broadcast channel: ActivityKit cannot tell a
    /// relaunched app which channel an activity follows.
    public var broadcastActivities: [String: String]

    public init(installID: String) {
        self.installID = installID
        self.broadcastActivities = [:]
    }

    enum CodingKeys: String, CodingKey {
        case installID = "install_id"
        case channelID = "channel_id"
        case channelSecret = "channel_secret"
        case liveActivitiesEnabled = "live_activities_enabled"
        case broadcastActivities = "broadcast_activities"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.installID = try c.decode(String.self, forKey: .installID)
        self.channelID = try c.decodeIfPresent(String.self, forKey: .channelID)
        self.channelSecret = try c.decodeIfPresent(String.self, forKey: .channelSecret)
        self.liveActivitiesEnabled = try c.decodeIfPresent(Bool.self, forKey: .liveActivitiesEnabled)
        self.broadcastActivities = try c.decodeIfPresent([String: String].self, forKey: .broadcastActivities) ?? [:]
    }
}
