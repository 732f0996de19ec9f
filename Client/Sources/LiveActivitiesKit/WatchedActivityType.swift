import Foundation
import LiveActivitiesClient

#if canImport(ActivityKit)
    import ActivityKit
#else
    import ActivityKitStandIn
#endif

/// The ActivityKit glue for one attributes type `A`: reads what ActivityKit documents, hands it to the watcher.
struct WatchedActivityType<A: ActivityAttributes & SendableMetatype>: WatchedType {
    let attributesType: String
    let contractVersion: Int?
    let name: @Sendable (A) -> String

    func run(_ watcher: ActivityWatcher) async {
        // Subscribe before reading the current list, so an activity that starts in between is not missed (one seen
        // twice is followed once).
        let started = Activity<A>.activityUpdates
        await withTaskGroup(of: Void.self) { group in
            if #available(iOS 17.2, *) {
                let tokens = Activity<A>.pushToStartTokenUpdates
                let current = Activity<A>.pushToStartToken
                group.addTask {
                    if let current {
                        await watcher.pushToStartToken(
                            current, attributesType: self.attributesType, contractVersion: self.contractVersion)
                    }
                    for await token in tokens {
                        await watcher.pushToStartToken(
                            token, attributesType: self.attributesType, contractVersion: self.contractVersion)
                    }
                }
            }
            for activity in Activity<A>.activities { await self.follow(activity, watcher) }
            await watcher.restored(attributesType: self.attributesType)
            for await activity in started { await self.follow(activity, watcher) }
            await group.waitForAll()
        }
    }

    /// Follows one activity from now on: its token now and every later one, and its end or dismissal.
    func follow(_ activity: Activity<A>, _ watcher: ActivityWatcher) async {
        let id = activity.id
        guard await watcher.begin(id) else { return }
        let name = self.name(activity.attributes)
        let tokens = activity.pushTokenUpdates
        let states = activity.activityStateUpdates
        let events = AsyncStream<ActivityEvent> { continuation in
            let feeders = Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { for await token in tokens { continuation.yield(.token(token)) } }
                    group.addTask {
                        for await state in states {
                            switch state {
                            case .ended: continuation.yield(.ended)
                            case .dismissed: continuation.yield(.dismissed)
                            default: continue
                            }
                        }
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in feeders.cancel() }
        }
        var first: [ActivityEvent] = []
        switch activity.activityState {
        case .ended: first.append(.ended)
        case .dismissed: first.append(.dismissed)
        default: if let token = activity.pushToken { first.append(.token(token)) } else { first.append(.noToken) }
        }
        // What it is now is told before `follow` returns: a restore reconciles only after its activities are tracked.
        var handler = ActivityEventHandler(
            instance: ActivityInstance(
                id: id, name: name, attributesType: self.attributesType, contractVersion: self.contractVersion),
            watcher: watcher)
        for event in first { await handler.handle(event) }
        await watcher.spawn(id) { [handler] in
            var handler = handler
            for await event in events {
                await handler.handle(event)
                if handler.isOver { break }
            }
        }
    }
}
