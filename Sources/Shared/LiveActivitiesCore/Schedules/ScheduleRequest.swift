import Foundation

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
