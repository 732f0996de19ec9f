/// Why the app reports an instance over, as ActivityKit's `ActivityState` says it.
public enum ActivityEndReason: String, Sendable, Equatable {
    /// `.ended`: "The Live Activity is visible, but a person, the app, or the system ended it, and it won't update
    /// its content anymore."
    case ended
    /// `.dismissed`: "The Live Activity ended and is no longer visible because a person or the system removed it."
    case dismissed
}
