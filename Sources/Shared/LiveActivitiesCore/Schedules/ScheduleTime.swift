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
