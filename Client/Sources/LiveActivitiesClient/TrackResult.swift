/// What the gateway did with a track call. (An activity id that has ended is refused: `LiveActivitiesError.rejected`,
/// status 409.)
public enum TrackResult: String, Sendable, Equatable, Decodable {
    /// A new instance under the name.
    case started
    /// The same instance and token: nothing changed (a relaunch restoring it).
    case unchanged
    /// The same instance with a new token.
    case rotated
    /// A new instance replaced the name's older one (which ended).
    case replaced
}
