import Foundation

/// What the stand-in's system keeps of every activity, whatever its attributes type.
protocol StandInActivity: AnyObject, Sendable {
    var id: String { get }
    var attributesTypeName: String { get }
    var activityState: ActivityState { get }
    var pushToken: Data? { get }
    /// The broadcast channel a `.channel` request (or `input-push-channel`) subscribed it to.
    var channelID: String? { get }
    /// The app's process ended: its sequences end with it.
    func finishSequences()
    /// The system applies a delivered payload: the content state (JSON, decoded with a default `JSONDecoder`) and
    /// whether it ended the activity.
    func systemApply(contentState: Data?, ended: Bool) throws
    func systemSetPushToken(_ token: Data)
    func systemSetState(_ state: ActivityState)
}
