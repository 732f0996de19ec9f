/// Stand-in for ActivityKit's `ActivityAuthorizationInfo` (iOS 16.1+).
///
/// Apple: "An object with information about whether a person allowed your app to start Live Activities and permitted
/// content updates with frequent ActivityKit push notifications." `final class ActivityAuthorizationInfo`
/// <https://developer.apple.com/documentation/activitykit/activityauthorizationinfo>
public final class ActivityAuthorizationInfo: Sendable {
    /// "An asynchronous sequence you use to observe whether your app can start a Live Activity."
    /// `final let activityEnablementUpdates: ActivityAuthorizationInfo.ActivityEnablementUpdates`
    public final let activityEnablementUpdates: ActivityAuthorizationInfo.ActivityEnablementUpdates

    /// "Creates an object you use to observe user authorizations for starting Live Activities and updating them with
    /// ActivityKit push notifications." `init()`
    public init() {
        self.activityEnablementUpdates = ActivityEnablementUpdates(
            stream: ActivitySystem.shared.enablementUpdates.subscribe())
    }

    /// "A Boolean value that indicates whether your app can start a Live Activity."
    /// `final var areActivitiesEnabled: Bool { get }`
    public final var areActivitiesEnabled: Bool { ActivitySystem.shared.state.withLock { $0.enabled } }

    /// Its elements: `typealias Element = Bool`.
    public struct ActivityEnablementUpdates: AsyncSequence, Sendable {
        public typealias Element = Bool
        let stream: AsyncStream<Bool>
        public func makeAsyncIterator() -> AsyncStream<Bool>.AsyncIterator { self.stream.makeAsyncIterator() }
    }
}
