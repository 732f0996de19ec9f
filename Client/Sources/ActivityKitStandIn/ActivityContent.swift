import Foundation

/// Stand-in for ActivityKit's `ActivityContent` (iOS 16.2+).
///
/// Apple: "A structure that describes the state and configuration of a Live Activity."
/// `struct ActivityContent<State> where State : Decodable, State : Encodable, State : Hashable` (Sendable)
/// <https://developer.apple.com/documentation/activitykit/activitycontent>
public struct ActivityContent<State> where State: Decodable, State: Encodable, State: Hashable {
    /// Apple's page calls it "The current state of a Live Activity in its life cycle"; it is the content state.
    public let state: State
    /// "The date when the system considers the Live Activity to be out of date."
    public let staleDate: Date?
    /// "A score you assign that determines the order in which your Live Activities appear".
    public let relevanceScore: Double

    /// `init(state: State, staleDate: Date?, relevanceScore: Double = 0.0)`
    /// <https://developer.apple.com/documentation/activitykit/activitycontent/init(state:staledate:relevancescore:)>
    public init(state: State, staleDate: Date?, relevanceScore: Double = 0.0) {
        self.state = state
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
    }
}

// Apple lists `Sendable` among ActivityContent's conformances; the stand-in claims it where the state is Sendable (a
// content state is a value type the app defines), rather than unchecked.
extension ActivityContent: Sendable where State: Sendable {}
extension ActivityContent: Equatable where State: Equatable {}
