/// Stand-in for ActivityKit's `ActivityState` (iOS 16.1+).
///
/// Apple: "The enum that describes the state of a Live Activity in its life cycle." `enum ActivityState`
/// <https://developer.apple.com/documentation/activitykit/activitystate>
public enum ActivityState: String, Encodable, Sendable, Hashable {
    /// "The Live Activity is active, visible, and can receive content updates."
    case active
    /// "The Live Activity is visible, but a person, the app, or the system ended it, and it won't update its content
    /// anymore."
    case ended
    /// "The Live Activity ended and is no longer visible because a person or the system removed it."
    case dismissed
    /// "The Live Activity content is out of date and needs an update."
    case stale
    /// "The Live Activity is scheduled to start at a specified date but hasn't started yet."
    case pending
}
