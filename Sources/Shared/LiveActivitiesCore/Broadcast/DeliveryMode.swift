/// `live_activity.delivery`: how a push to an activity name reaches its devices.
public enum DeliveryMode: String, Sendable, Codable, CaseIterable {
    /// An update or end to every device (`audience: "all"`) of a name with a broadcast channel goes as one broadcast
    /// request; anything else goes by per-activity tokens.
    case auto
    /// One broadcast request to the name's channel only.
    case broadcast
    /// Per-activity tokens only, as before broadcast channels.
    case tokens
    /// The broadcast, plus tokens for the instances tracked with a token and not subscribed to the channel (devices
    /// below iOS 18). No instance gets both.
    case both
}
