import Foundation

/// The APNs body of a live-activity push: `{"aps":{...}}`, encoded once per push and shared by every device.
public enum APNsPayload {
    /// Apple: a notification to a device token carries at most 4,096 bytes.
    public static let maxBytes = 4096
    /// Apple: a broadcast push notification's payload may be up to 5,120 bytes.
    public static let broadcastMaxBytes = 5120

    /// Encodes `notification` with `timestamp` (epoch seconds) and checks the size limit. A start subscribes the new
    /// activity to `inputPushChannel` (Apple: `"input-push-channel": "<channel id>"`) when given, else asks for a
    /// per-activity token (`"input-push-token": 1`).
    public static func encode(
        _ notification: LiveActivityNotification, timestamp: Int64, path: String, inputPushChannel: String? = nil,
        maxBytes: Int = Self.maxBytes
    ) throws(ValidationError) -> [UInt8] {
        var aps: [String: JSONValue] = [
            "timestamp": .integer(timestamp),
            "event": .string(notification.event.rawValue),
        ]
        if let state = notification.contentState { aps["content-state"] = .object(state) }
        if let type = notification.attributesType, notification.event == .start {
            aps["attributes-type"] = .string(type)
        }
        if let attributes = notification.attributes { aps["attributes"] = .object(attributes) }
        if let alert = notification.alert {
            var fields: [String: JSONValue] = [:]
            if let title = alert.title { fields["title"] = .string(title) }
            if let body = alert.body { fields["body"] = .string(body) }
            if let sound = alert.sound { fields["sound"] = .string(sound) }
            aps["alert"] = .object(fields)
        }
        if let stale = notification.staleDate { aps["stale-date"] = .integer(stale) }
        if let dismissal = notification.dismissalDate { aps["dismissal-date"] = .integer(dismissal) }
        if let score = notification.relevanceScore { aps["relevance-score"] = .number(score) }
        if notification.event == .start {
            if let inputPushChannel {
                aps["input-push-channel"] = .string(inputPushChannel)
            } else {
                aps["input-push-token"] = .integer(1)
            }
        }

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes: [UInt8]
        do {
            bytes = Array(try encoder.encode(JSONValue.object(["aps": .object(aps)])))
        } catch {
            throw ValidationError(path: path, rule: "cannot be encoded as JSON (a number is not finite)")
        }
        guard bytes.count <= maxBytes else {
            let how = maxBytes == Self.broadcastMaxBytes ? "a broadcast" : "a request to a device token"
            throw ValidationError(
                path: path,
                rule: "encodes to an APNs payload of \(bytes.count) bytes; APNs allows \(maxBytes) in \(how)")
        }
        return bytes
    }
}
