import Foundation

extension Activity {
    /// Apple: "An asynchronous sequence you use to observe changes to ongoing Live Activities and to asynchronously
    /// access a Live Activity when you start it." `static var activityUpdates: Activity<Attributes>.ActivityUpdates`
    /// <https://developer.apple.com/documentation/activitykit/activity/activityupdates-swift.type.property>
    ///
    /// Each access is a new sequence of the activities that start after it (stricter than devices, which may also
    /// replay current ones: the glue reads `activities` for those).
    public static var activityUpdates: Activity<Attributes>.ActivityUpdates {
        ActivityUpdates(stream: ActivitySystem.shared.activityUpdates.subscribe())
    }

    /// Apple: "An asynchronous sequence you use to observe changes to the push token of a Live Activity."
    /// `var pushTokenUpdates: Activity<Attributes>.PushTokenUpdates { get }`
    /// <https://developer.apple.com/documentation/activitykit/activity/pushtokenupdates-swift.property>
    ///
    /// Stricter than devices: only tokens issued after the access (the current one is `pushToken`).
    public var pushTokenUpdates: Activity<Attributes>.PushTokenUpdates {
        PushTokenUpdates(stream: self.tokenUpdates.subscribe())
    }

    /// Apple: "An asynchronous sequence you use to observe activity state changes."
    /// `var activityStateUpdates: Activity<Attributes>.ActivityStateUpdates { get }`
    /// <https://developer.apple.com/documentation/activitykit/activity/activitystateupdates-swift.property>
    public var activityStateUpdates: Activity<Attributes>.ActivityStateUpdates {
        ActivityStateUpdates(stream: self.stateUpdates.subscribe())
    }

    /// Apple: "The token you use to start a Live Activity with an ActivityKit push notification."
    /// `static var pushToStartToken: Data? { get }` (iOS 17.2+)
    /// <https://developer.apple.com/documentation/activitykit/activity/pushtostarttoken>
    @available(iOS 17.2, *)
    public static var pushToStartToken: Data? {
        ActivitySystem.shared.state.withLock { $0.pushToStartTokens[nameOfAttributesType(Attributes.self)] }
    }

    /// Apple: "An asynchronous sequence you use to observe changes to the token for starting a Live Activity with an
    /// ActivityKit push notification." `static var pushToStartTokenUpdates: Activity<Attributes>.PushTokenUpdates`
    /// (iOS 17.2+) <https://developer.apple.com/documentation/activitykit/activity/pushtostarttokenupdates>
    @available(iOS 17.2, *)
    public static var pushToStartTokenUpdates: Activity<Attributes>.PushTokenUpdates {
        let name = nameOfAttributesType(Attributes.self)
        let all = ActivitySystem.shared.pushToStartTokenUpdates.subscribe()
        return PushTokenUpdates(
            stream: AsyncStream { continuation in
                let task = Task {
                    for await update in all where update.attributesTypeName == name { continuation.yield(update.token) }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            })
    }

    /// `struct ActivityUpdates` — "A structure that offers functionality to observe changes to a Live Activity."
    /// `typealias Element = Activity<Attributes>`
    public struct ActivityUpdates: AsyncSequence, Sendable {
        public typealias Element = Activity<Attributes>
        let stream: AsyncStream<any StandInActivity>
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<any StandInActivity>.AsyncIterator
            public mutating func next() async -> Activity<Attributes>? {
                while let activity = await self.base.next() {
                    if let activity = activity as? Activity<Attributes> { return activity }
                }
                return nil
            }
        }
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: self.stream.makeAsyncIterator()) }
    }

    /// `struct PushTokenUpdates` — "A structure that offers functionality to observe changes to the push token of a
    /// Live Activity." Its elements are `Data`.
    public struct PushTokenUpdates: AsyncSequence, Sendable {
        public typealias Element = Data
        let stream: AsyncStream<Data>
        public func makeAsyncIterator() -> AsyncStream<Data>.AsyncIterator { self.stream.makeAsyncIterator() }
    }

    /// `struct ActivityStateUpdates`: the activity's states as they change; its elements are `ActivityState`.
    public struct ActivityStateUpdates: AsyncSequence, Sendable {
        public typealias Element = ActivityState
        let stream: AsyncStream<ActivityState>
        public func makeAsyncIterator() -> AsyncStream<ActivityState>.AsyncIterator { self.stream.makeAsyncIterator() }
    }
}
