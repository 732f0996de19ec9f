/// What `forget()` removed at the gateway (GDPR): the channel and everything under it.
public struct ForgetCounts: Sendable, Equatable, Decodable {
    public var channels: Int
    public var tags: Int
    public var pushToStartTokens: Int
    public var liveActivities: Int

    enum CodingKeys: String, CodingKey {
        case channels, tags
        case pushToStartTokens = "push_to_start_tokens"
        case liveActivities = "live_activities"
    }
}
