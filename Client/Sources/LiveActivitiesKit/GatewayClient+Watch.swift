import Foundation
import LiveActivitiesClient

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitStandIn
#endif

extension GatewayClient {
    /// Call once at launch (`application(_:didFinishLaunchingWithOptions:)`), with every attributes type the app
    /// uses: restores every current activity, follows the ones that start later (by push too, while the app was not
    /// running), forwards every update token and push-to-start token, reports ends and dismissals, tells the gateway
    /// when Live Activities are switched off or on, then reconciles the channel once. Registers the install if needed.
    ///
    ///     gateway.watch(.activity(Activity<MatchAttributes>.self, name: { $0.matchID }))
    ///
    /// A call that fails (the gateway unreachable after the client's retries) is sent again every `resyncInterval`
    /// until it is accepted; one the gateway refuses (a 4xx) goes to `onError`. Reconciling ends only instances of
    /// the watched types, so a second `watch` for other types ends none of these.
    @discardableResult
    public nonisolated func watch(
        _ registrations: ActivityRegistration..., resyncInterval: Duration = .seconds(60),
        onError: @escaping @Sendable (any Error) -> Void = { _ in }
    ) -> ActivityWatch {
        let types = registrations.map(\.watched)
        let watcher = ActivityWatcher(client: self, types: types.map(\.attributesType), onError: onError)
        let task = Task {
            let handler = await self.onChannelChange { _ in await watcher.channelChanged() }
            defer { Task { await self.removeChannelChangeHandler(handler) } }
            let info = ActivityAuthorizationInfo()
            let enablement = info.activityEnablementUpdates
            await watcher.enablement(info.areActivitiesEnabled)
            // Until the process's sequences end (or the watch is canceled); the resync loop with them.
            await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    for await enabled in enablement { await watcher.enablement(enabled) }
                    return true
                }
                for type in types {
                    group.addTask {
                        await type.run(watcher)
                        return true
                    }
                }
                group.addTask {
                    while (try? await Task.sleep(for: resyncInterval)) != nil { await watcher.resync() }
                    return false
                }
                var following = types.count + 1
                while let ended = await group.next() {
                    if ended { following -= 1 }
                    if following == 0 { group.cancelAll() }
                }
            }
        }
        return ActivityWatch(watcher: watcher, task: task)
    }

    /// One attributes type: `watch(Activity<MatchAttributes>.self, name: { $0.matchID })`.
    @discardableResult
    public nonisolated func watch<A: ActivityAttributes & SendableMetatype>(
        _ type: Activity<A>.Type, attributesType: String? = nil, name: @escaping @Sendable (A) -> String,
        resyncInterval: Duration = .seconds(60), onError: @escaping @Sendable (any Error) -> Void = { _ in }
    ) -> ActivityWatch {
        self.watch(
            .activity(type, attributesType: attributesType, name: name), resyncInterval: resyncInterval,
            onError: onError)
    }

    /// Starts an activity in the app (in the foreground, as ActivityKit requires): on iOS 18 on the name's broadcast
    /// channel when it has one (`.channel(id)`, tracked here at once), else with an update token (`.token`, tracked
    /// by `watch` when the token arrives).
    @available(iOS 16.2, *)
    public func start<A: ActivityAttributes>(
        attributes: A, content: ActivityContent<A.ContentState>, name: String, attributesType: String? = nil
    ) async throws -> Activity<A> {
        let type = attributesType ?? String(describing: A.self)
        if #available(iOS 18.0, *), let channel = try await self.broadcastChannelID(for: name) {
            let activity = try Activity<A>.request(
                attributes: attributes, content: content, pushType: .channel(channel))
            try self.setBroadcastChannel(channel, forActivity: activity.id)
            try await self.track(
                name: name, attributesType: type, systemActivityID: activity.id, broadcastChannelID: channel)
            return activity
        }
        return try Activity<A>.request(attributes: attributes, content: content, pushType: .token)
    }
}
