import Foundation

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
