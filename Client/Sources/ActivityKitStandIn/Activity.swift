import Foundation

/// Stand-in for ActivityKit's `Activity` (iOS 16.1+): the members the glue in `LiveActivitiesKit` uses, with Apple's
/// signatures, driven by `StandInDevice` (the system's side) in tests.
///
/// Apple: "The object you use to start, update, and end a Live Activity."
/// `class Activity<Attributes> where Attributes : ActivityAttributes`
/// <https://developer.apple.com/documentation/activitykit/activity>
///
/// `@unchecked Sendable`: ActivityKit's activities are passed between tasks in the same way; here every mutable
/// field sits in `state`, read and written only under `lock`, and `attributes`/`id` are immutable `let`s, so sharing
/// it is safe.
public final class Activity<Attributes>: @unchecked Sendable where Attributes: ActivityAttributes {
    /// Apple: "The type alias for the structure that describes the dynamic content of a Live Activity."
    /// `typealias ContentState = Attributes.ContentState`
    public typealias ContentState = Attributes.ContentState

    /// "A unique identifier for a Live Activity." `final let id: String`
    /// <https://developer.apple.com/documentation/activitykit/activity/id>
    public final let id: String

    /// "A set of attributes that describe a Live Activity and its content." `final let attributes: Attributes`
    /// <https://developer.apple.com/documentation/activitykit/activity/attributes>
    public final let attributes: Attributes

    struct Live {
        var content: ActivityContent<ContentState>
        var state: ActivityState = .active
        var pushToken: Data?
        var channelID: String?
    }
    private let lock = NSLock()
    private var state: Live
    let tokenUpdates = Broadcast<Data>()
    let stateUpdates = Broadcast<ActivityState>()

    init(id: String = UUID().uuidString, attributes: Attributes, content: ActivityContent<ContentState>) {
        self.id = id
        self.attributes = attributes
        self.state = Live(content: content)
    }

    func withLive<T>(_ body: (inout Live) -> T) -> T {
        self.lock.withLock { body(&self.state) }
    }

    /// "An array of your app's current Live Activities." `static var activities: [Activity<Attributes>] { get }`
    /// <https://developer.apple.com/documentation/activitykit/activity/activities>
    public static var activities: [Activity<Attributes>] {
        ActivitySystem.shared.activities(named: nameOfAttributesType(Attributes.self)).compactMap { $0 as? Self }
    }

    /// "The current state of a Live Activity in its life cycle." `var activityState: ActivityState { get }`
    /// <https://developer.apple.com/documentation/activitykit/activity/activitystate>
    public var activityState: ActivityState { self.withLive { $0.state } }

    /// "The dynamic content of a Live Activity."
    /// `var content: ActivityContent<Activity<Attributes>.ContentState> { get }` (iOS 16.2+)
    /// <https://developer.apple.com/documentation/activitykit/activity/content>
    public var content: ActivityContent<Activity<Attributes>.ContentState> { self.withLive { $0.content } }

    /// "The token you use to send ActivityKit push notifications to a Live Activity." `var pushToken: Data? { get }`
    /// "The push token for a Live Activity may change over time. Use the pushTokenUpdates asynchronous sequence to
    /// receive the updated push token." <https://developer.apple.com/documentation/activitykit/activity/pushtoken>
    public var pushToken: Data? { self.withLive { $0.pushToken } }

    /// "Requests and starts a standard Live Activity."
    /// `static func request(attributes: Attributes, content: ActivityContent<Activity<Attributes>.ContentState>,
    /// pushType: PushType? = nil) throws -> Activity<Attributes>` (iOS 16.2+)
    /// <https://developer.apple.com/documentation/activitykit/activity/request(attributes:content:pushtype:)>
    ///
    /// Stricter than Apple is explicit about: a `.token` activity has no token when `request` returns; it arrives on
    /// `pushTokenUpdates` (as on devices, where it comes asynchronously).
    public static func request(
        attributes: Attributes, content: ActivityContent<Activity<Attributes>.ContentState>, pushType: PushType? = nil
    ) throws -> Activity<Attributes> {
        guard ActivitySystem.shared.state.withLock({ $0.enabled }) else { throw StandInDeviceError.activitiesDisabled }
        let activity = Activity(attributes: attributes, content: content)
        if case .channel(let id)? = pushType?.kind { activity.withLive { $0.channelID = id } }
        ActivitySystem.shared.add(activity)
        if pushType?.kind == .token {
            let system: any StandInActivity = activity
            Task { system.systemSetPushToken(StandInDevice.newToken()) }
        }
        return activity
    }

    /// "Ends an active Live Activity."
    /// `func end(_ content: ActivityContent<Activity<Attributes>.ContentState>?,
    /// dismissalPolicy: ActivityUIDismissalPolicy = .default) async` (iOS 16.2+)
    /// <https://developer.apple.com/documentation/activitykit/activity/end(_:dismissalpolicy:)>
    public func end(
        _ content: ActivityContent<Activity<Attributes>.ContentState>?,
        dismissalPolicy: ActivityUIDismissalPolicy = .default
    ) async {
        if let content { self.withLive { $0.content = content } }
        self.systemSetState(.ended)
        // "With the immediate dismissal policy, the system immediately removes the ended Live Activity and the
        // ActivityState changes to ActivityState.dismissed."
        if dismissalPolicy == .immediate { self.systemSetState(.dismissed) }
    }
}

extension Activity: StandInActivity {
    var attributesTypeName: String { nameOfAttributesType(Attributes.self) }

    var channelID: String? { self.withLive { $0.channelID } }

    func finishSequences() {
        self.tokenUpdates.finishAll()
        self.stateUpdates.finishAll()
    }

    func systemApply(contentState: Data?, ended: Bool) throws {
        if let contentState {
            // Apple decodes content-state into the app's ContentState; a default JSONDecoder, as ActivityKit uses.
            let state = try JSONDecoder().decode(ContentState.self, from: contentState)
            self.withLive { $0.content = ActivityContent(state: state, staleDate: $0.content.staleDate) }
        }
        if ended { self.systemSetState(.ended) }
    }

    func systemSetPushToken(_ token: Data) {
        self.withLive { $0.pushToken = token }
        self.tokenUpdates.yield(token)
    }

    func systemSetState(_ state: ActivityState) {
        let changed = self.withLive { live -> Bool in
            // Nothing comes back from dismissed; ended only goes on to dismissed.
            switch (live.state, state) {
            case (.dismissed, _), (.ended, .active), (.ended, .stale), (.ended, .pending): return false
            default:
                guard live.state != state else { return false }
                live.state = state
                return true
            }
        }
        guard changed else { return }
        self.stateUpdates.yield(state)
        if state == .dismissed {
            ActivitySystem.shared.remove(id: self.id)
            self.finishSequences()
        }
    }
}
