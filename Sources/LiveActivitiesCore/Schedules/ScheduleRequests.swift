import Foundation

/// When a schedule fires, as the API gives it: an absolute time or a delay from the server's now.
public enum ScheduleTime: Sendable, Equatable {
    case at(Date)
    case after(seconds: Int)

    /// A time this far in the past is still accepted (clock skew, slow clients); it fires at once.
    public static let pastTolerance: TimeInterval = 5
    public static let longest: TimeInterval = 366 * 24 * 3600

    /// The send time relative to `now`, or the rule it breaks.
    public func resolve(now: Date, path: String) throws(ValidationError) -> Date {
        switch self {
        case .after(let seconds):
            guard seconds >= 0 else { throw ValidationError(path: path, rule: "must not be negative") }
            guard TimeInterval(seconds) <= Self.longest else {
                throw ValidationError(path: path, rule: "must be at most a year")
            }
            return now.addingTimeInterval(TimeInterval(seconds))
        case .at(let date):
            guard date.timeIntervalSince(now) >= -Self.pastTolerance else {
                throw ValidationError(path: path, rule: "is in the past")
            }
            guard date.timeIntervalSince(now) <= Self.longest else {
                throw ValidationError(path: path, rule: "must be within a year")
            }
            return max(date, now)
        }
    }

    /// ISO-8601 with or without an offset (no offset is UTC), with or without fractional seconds.
    public static func parseISO8601(_ text: String) -> Date? {
        for options: ISO8601DateFormatter.Options in [
            [.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds],
            [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate],
            [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate, .withFractionalSeconds],
        ] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            formatter.timeZone = TimeZone(identifier: "UTC")
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}

/// `POST /api/schedules` (Airship): `{name?, schedule:{scheduled_time | delay_seconds}, push:{...}}`.
public struct ScheduleRequest: Sendable, Equatable {
    public var name: String?
    public var time: ScheduleTime
    public var push: PushRequest

    enum Keys: String, CodingKey, CaseIterable { case name, schedule, push }
    enum TimeKeys: String, CodingKey, CaseIterable {
        case scheduledTime = "scheduled_time"
        case delaySeconds = "delay_seconds"
    }
}

extension ScheduleRequest: Decodable {
    public init(from decoder: any Decoder) throws {
        let at = decoder.path
        try decoder.rejectUnknownKeys(Keys.self)
        let c = try decoder.container(keyedBy: Keys.self)
        self.name = try c.decodeIfPresent(String.self, forKey: .name)
        if let name { try FieldRules.text(name, path: at("name"), maxLength: 128) }
        let schedule = try c.superDecoder(forKey: .schedule)
        try schedule.rejectUnknownKeys(TimeKeys.self)
        let time = try schedule.container(keyedBy: TimeKeys.self)
        switch (
            try time.decodeIfPresent(String.self, forKey: .scheduledTime),
            try time.decodeIfPresent(Int.self, forKey: .delaySeconds)
        ) {
        case (let text?, nil):
            guard let date = ScheduleTime.parseISO8601(text) else {
                throw ValidationError(
                    path: at("schedule.scheduled_time"), rule: "must be an ISO-8601 time such as 2026-12-01T18:00:00Z")
            }
            self.time = .at(date)
        case (nil, let delay?):
            self.time = .after(seconds: delay)
        default:
            throw ValidationError(path: at("schedule"), rule: "needs exactly one of scheduled_time and delay_seconds")
        }
        self.push = try c.decode(PushRequest.self, forKey: .push)
    }

    public func timePath() -> String {
        if case .at = self.time { return "schedule.scheduled_time" }
        return "schedule.delay_seconds"
    }
}

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
