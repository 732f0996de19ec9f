import Foundation

/// Starts an activity of one registered attributes type from a push's JSON.
protocol ActivityStarter: Sendable {
    func start(attributes: Data, contentState: Data, pushType: PushType?) throws -> any StandInActivity
}

/// The starter of `A`: decodes the push's `attributes` and `content-state` with a default `JSONDecoder`, as
/// ActivityKit does.
struct PushStarter<A: ActivityAttributes>: ActivityStarter {
    func start(attributes: Data, contentState: Data, pushType: PushType?) throws -> any StandInActivity {
        let decoded = try JSONDecoder().decode(A.self, from: attributes)
        let state = try JSONDecoder().decode(A.ContentState.self, from: contentState)
        let activity = Activity(attributes: decoded, content: ActivityContent(state: state, staleDate: nil))
        if case .channel(let id)? = pushType?.kind { activity.withLive { $0.channelID = id } }
        return activity
    }
}
