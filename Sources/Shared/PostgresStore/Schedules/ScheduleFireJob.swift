import Foundation

/// `schedule.fire`: fire the schedules due by now. One is queued per schedule at its send time (deduplicated by
/// schedule), and each run fires every due schedule, so the payload names the schedule only for the operator.
public struct ScheduleFireJob: JobPayload, Equatable {
    public static let kind = JobKind.scheduleFire

    public var scheduleID: UUID

    public init(scheduleID: UUID) {
        self.scheduleID = scheduleID
    }

    /// The job's dedupe key: one live fire job per schedule, found again when the schedule moves or is deleted.
    public static func dedupeKey(_ id: UUID) -> String { "schedule:\(id.uuidString.lowercased())" }

    enum CodingKeys: String, CodingKey {
        case scheduleID = "schedule_id"
    }

    /// Ids in lowercase, as the API and the tables show them.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(self.scheduleID.uuidString.lowercased(), forKey: .scheduleID)
    }
}
