import Foundation

/// The device's report that an instance ended (`DELETE /api/channels/{id}/live-activities/{name}`), from the query:
/// `system_activity_id` (only that instance), `reason` and `at` (epoch seconds, when the device saw it).
public struct ActivityEnd: Sendable, Equatable {
    /// ActivityKit's `ActivityState`, as the device observed it.
    public enum Reason: String, Sendable, CaseIterable {
        /// `.ended`: "The Live Activity is visible, but a person, app, or ActivityKit push notification ended it and
        /// it no longer receives content updates."
        case ended
        /// `.dismissed`: "The Live Activity ended and is no longer visible because a person or the system removed
        /// it."
        case dismissed
    }

    /// nil: the name's current instance, whichever it is (the call as it was before these parameters).
    public var systemActivityID: String?
    public var reason: Reason
    /// When the device saw it; nil: now.
    public var at: Date?

    /// How far ahead of the gateway's clock `at` may be.
    public static let futureTolerance: TimeInterval = 60

    public init(systemActivityID: String? = nil, reason: Reason = .ended, at: Date? = nil) {
        self.systemActivityID = systemActivityID
        self.reason = reason
        self.at = at
    }

    /// Parses the query parameters (`query:<name>` in errors); `now` bounds `at`.
    public init(query: (String) -> String?, now: Date) throws(ValidationError) {
        if let id = query("system_activity_id") {
            try RegistryRules.systemActivityID(id, path: "query:system_activity_id")
            self.systemActivityID = id
        }
        self.reason = .ended
        if let raw = query("reason") {
            guard let reason = Reason(rawValue: raw) else {
                throw ValidationError(path: "query:reason", rule: "must be one of ended, dismissed")
            }
            self.reason = reason
        }
        if let raw = query("at") {
            guard let seconds = Int64(raw), seconds >= 0 else {
                throw ValidationError(path: "query:at", rule: "must be a whole number of seconds since 1970")
            }
            let at = Date(timeIntervalSince1970: TimeInterval(seconds))
            guard at.timeIntervalSince(now) <= Self.futureTolerance else {
                throw ValidationError(path: "query:at", rule: "must be no more than 60 seconds in the future")
            }
            self.at = at
        }
    }
}
