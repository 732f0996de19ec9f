/// What the gateway did with a track call.
public enum TrackResult: String, Sendable, Equatable, Decodable {
    /// A new instance under the name.
    case started
    /// The same instance and token: nothing changed (a relaunch restoring it).
    case unchanged
    /// The same instance with a new token.
    case rotated
    /// A new instance replaced the name's older one (which ended).
    case replaced
    /// The instance had ended: it is not tracked again.
    case refused
}
