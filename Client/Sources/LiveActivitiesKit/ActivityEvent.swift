import Foundation

/// What happens to one activity, in the order ActivityKit reports it.
enum ActivityEvent: Sendable, Equatable {
    /// A (new) update token.
    case token(Data)
    /// Running without a token (yet): one comes on `pushTokenUpdates`, or it follows a broadcast channel.
    case noToken
    case ended
    case dismissed
}
