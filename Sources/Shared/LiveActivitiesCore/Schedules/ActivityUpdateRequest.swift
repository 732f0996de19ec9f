import Foundation

/// `POST /api/channels/{id}/live-activities/{name}/updates` (device): an update (or end) of that activity later.
public struct ActivityUpdateRequest: Sendable, Equatable {
    public var time: ScheduleTime
    public var notification: LiveActivityNotification
    public var scheduleName: String?

    enum Keys: String, CodingKey, CaseIterable {
        case offset, alert, priority, system
        case sendAt = "send_at"
        case contentState = "content_state"
        case scheduleName = "schedule_name"
    }
    enum SystemKeys: String, CodingKey, CaseIterable {
        case event
        case staleDate = "stale_date"
        case dismissalDate = "dismissal_date"
    }

    /// The push it becomes: this channel, this name.
    public func push(channelID: UUID, name: String) throws(ValidationError) -> PushRequest {
        var notification = self.notification
        notification.name = name
        try notification.validate { $0.stringValue }
        return PushRequest(audience: .channels([channelID]), liveActivity: notification)
    }
}

extension ActivityUpdateRequest: Decodable {
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(Keys.self)
        let c = try decoder.container(keyedBy: Keys.self)
        switch (try c.decodeIfPresent(Int.self, forKey: .offset), try c.decodeIfPresent(Int64.self, forKey: .sendAt)) {
        case (let offset?, nil): self.time = .after(seconds: offset)
        case (nil, let sendAt?):
            guard sendAt <= LiveActivityNotification.latestSeconds else {
                throw ValidationError(path: "send_at", rule: "must be epoch seconds; this looks like milliseconds")
            }
            self.time = .at(Date(timeIntervalSince1970: TimeInterval(sendAt)))
        default: throw ValidationError(path: "offset", rule: "needs exactly one of offset and send_at")
        }
        var event = LiveActivityNotification.Event.update
        var stale: Int64?
        var dismissal: Int64?
        if c.contains(.system) {
            let system = try c.superDecoder(forKey: .system)
            try system.rejectUnknownKeys(SystemKeys.self)
            let s = try system.container(keyedBy: SystemKeys.self)
            event = try s.decodeIfPresent(LiveActivityNotification.Event.self, forKey: .event) ?? .update
            guard event != .start else { throw ValidationError(path: "system.event", rule: "must be update or end") }
            stale = try s.decodeIfPresent(Int64.self, forKey: .staleDate)
            dismissal = try s.decodeIfPresent(Int64.self, forKey: .dismissalDate)
        }
        self.notification = LiveActivityNotification(
            event: event, name: "pending",
            contentState: try c.decodeIfPresent([String: JSONValue].self, forKey: .contentState),
            alert: try c.decodeIfPresent(LiveActivityNotification.Alert.self, forKey: .alert),
            priority: try c.decodeIfPresent(Int.self, forKey: .priority) ?? 10, staleDate: stale,
            dismissalDate: dismissal)
        self.scheduleName = try c.decodeIfPresent(String.self, forKey: .scheduleName)
        if let scheduleName { try FieldRules.text(scheduleName, path: "schedule_name", maxLength: 128) }
        // The event's rules with this body's paths (system fields live under "system").
        try self.notification.validate { key in
            switch key {
            case .staleDate: "system.stale_date"
            case .dismissalDate: "system.dismissal_date"
            case .event: "system.event"
            default: key.stringValue
            }
        }
        _ = try APNsPayload.encode(self.notification, timestamp: 1_800_000_000, path: "content_state")
    }
}
