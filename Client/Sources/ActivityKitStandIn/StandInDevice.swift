import Foundation

/// The system's side of the stand-in device, for tests: what iOS does to the app's activities on its own. Not part of
/// ActivityKit. A test drives it from what APNs delivered (the simulator's recordings, judged by Apple's rules) and
/// from what a person does (dismiss, switch Live Activities off), and restarts the app's process.
public enum StandInDevice {
    /// Makes `A` startable by push: iOS finds the type by the payload's `attributes-type` (its name) in the app.
    public static func register<A: ActivityAttributes>(_ type: A.Type) {
        ActivitySystem.shared.state.withLock { $0.starters[nameOfAttributesType(type)] = PushStarter<A>() }
    }

    /// Issues (or rotates) the push-to-start token of `A`: `Activity<A>.pushToStartToken` changes and
    /// `pushToStartTokenUpdates` yields it.
    @discardableResult
    public static func issuePushToStartToken<A: ActivityAttributes>(for type: A.Type) -> Data {
        let token = Self.newToken()
        let name = nameOfAttributesType(type)
        ActivitySystem.shared.state.withLock { $0.pushToStartTokens[name] = token }
        ActivitySystem.shared.pushToStartTokenUpdates.yield(.init(attributesTypeName: name, token: token))
        return token
    }

    /// A push-to-start arrived (an APNs body with `"event":"start"`): the activity starts and `activityUpdates`
    /// yields it. Apple: the payload's `input-push-token: 1` asks for an update token, which comes on
    /// `pushTokenUpdates`; `input-push-channel` subscribes it to a broadcast channel instead. Returns its id.
    @discardableResult
    public static func startFromPush(_ body: Data) throws -> String {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any],
            let aps = object["aps"] as? [String: Any], aps["event"] as? String == "start",
            let typeName = aps["attributes-type"] as? String, let attributes = aps["attributes"],
            let contentState = aps["content-state"]
        else { throw StandInDeviceError.notAStartPayload }
        guard let starter = ActivitySystem.shared.state.withLock({ $0.starters[typeName] }) else {
            throw StandInDeviceError.unknownAttributesType(typeName)
        }
        var pushType: PushType?
        if let channel = aps["input-push-channel"] as? String {
            pushType = PushType(kind: .channel(channel))
        } else if (aps["input-push-token"] as? NSNumber)?.intValue == 1 {
            pushType = .token
        }
        let activity = try starter.start(
            attributes: try JSONSerialization.data(withJSONObject: attributes),
            contentState: try JSONSerialization.data(withJSONObject: contentState), pushType: pushType)
        ActivitySystem.shared.add(activity)
        if pushType == .token { activity.systemSetPushToken(Self.newToken()) }
        return activity.id
    }

    /// What the device shows after the payloads APNs delivered to the activity's token, as the simulator's device
    /// model judged them by Apple's rules: its content state (JSON) and whether an end was applied.
    public static func apply(activityID: String, contentState: Data?, ended: Bool) throws {
        guard let activity = ActivitySystem.shared.activity(id: activityID) else {
            throw StandInDeviceError.unknownActivity(activityID)
        }
        try activity.systemApply(contentState: contentState, ended: ended)
    }

    /// iOS rotates the activity's update token: `pushToken` changes and `pushTokenUpdates` yields the new one.
    @discardableResult
    public static func rotateToken(activityID: String) throws -> Data {
        guard let activity = ActivitySystem.shared.activity(id: activityID) else {
            throw StandInDeviceError.unknownActivity(activityID)
        }
        let token = Self.newToken()
        activity.systemSetPushToken(token)
        return token
    }

    /// The person removes the activity from the Lock Screen: its state becomes `dismissed` and it leaves `activities`.
    public static func dismiss(activityID: String) throws {
        guard let activity = ActivitySystem.shared.activity(id: activityID) else {
            throw StandInDeviceError.unknownActivity(activityID)
        }
        activity.systemSetState(.dismissed)
    }

    /// The person switches Live Activities off (or on) in Settings.
    public static func setActivitiesEnabled(_ enabled: Bool) {
        ActivitySystem.shared.state.withLock { $0.enabled = enabled }
        ActivitySystem.shared.enablementUpdates.yield(enabled)
    }

    /// The app's process ends (and a new one may start): every sequence it iterated ends; activities, tokens and
    /// registered types stay, as they do on a device.
    public static func relaunchApp() { ActivitySystem.shared.endProcess() }

    /// A new device.
    public static func reset() { ActivitySystem.shared.reset() }

    /// The update token of an activity (nil until iOS issues one, and for a channel activity).
    public static func pushToken(activityID: String) -> Data? {
        ActivitySystem.shared.activity(id: activityID)?.pushToken
    }

    /// The broadcast channel an activity was started on (`PushType.channel`, or a push's `input-push-channel`).
    public static func broadcastChannel(activityID: String) -> String? {
        ActivitySystem.shared.activity(id: activityID)?.channelID
    }

    /// Every current activity's id (any type), oldest first.
    public static var activityIDs: [String] {
        ActivitySystem.shared.state.withLock { $0.activities.map(\.id) }
    }

    /// 32 random bytes, as a device token.
    static func newToken() -> Data { Data((0..<32).map { _ in UInt8.random(in: 0...255) }) }
}
