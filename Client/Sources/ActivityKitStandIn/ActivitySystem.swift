import Foundation
import Synchronization

/// The device's side of the stand-in: every current activity of every type, the push-to-start tokens, whether Live
/// Activities are enabled, and the listeners of the app's process. One per process, as the system is one per device.
final class ActivitySystem: Sendable {
    static let shared = ActivitySystem()

    struct State {
        var activities: [any StandInActivity] = []
        var pushToStartTokens: [String: Data] = [:]
        var starters: [String: any ActivityStarter] = [:]
        var enabled = true
    }

    let state = Mutex(State())
    let activityUpdates = Broadcast<any StandInActivity>()
    let pushToStartTokenUpdates = Broadcast<PushToStartToken>()
    let enablementUpdates = Broadcast<Bool>()

    struct PushToStartToken: Sendable {
        var attributesTypeName: String
        var token: Data
    }

    func activities(named typeName: String) -> [any StandInActivity] {
        self.state.withLock { state in
            state.activities.filter { $0.attributesTypeName == typeName && $0.activityState != .dismissed }
        }
    }

    func activity(id: String) -> (any StandInActivity)? {
        self.state.withLock { state in state.activities.first { $0.id == id } }
    }

    func add(_ activity: any StandInActivity) {
        self.state.withLock { $0.activities.append(activity) }
        self.activityUpdates.yield(activity)
    }

    func remove(id: String) {
        self.state.withLock { $0.activities.removeAll { $0.id == id } }
    }

    /// The app's process ended: every sequence it was iterating ends.
    func endProcess() {
        self.activityUpdates.finishAll()
        self.pushToStartTokenUpdates.finishAll()
        self.enablementUpdates.finishAll()
        for activity in self.state.withLock({ $0.activities }) { activity.finishSequences() }
    }

    /// A new device: no activities, no tokens, nothing registered, enabled.
    func reset() {
        self.endProcess()
        self.state.withLock { $0 = State() }
    }
}

/// The name APNs payloads give an attributes type (`attributes-type`): the type's name, as Apple's example shows.
func nameOfAttributesType<A>(_ type: A.Type) -> String { String(describing: type) }
