import Foundation

/// A device-scheduled update as the gateway accepted it (Teak's `ScheduleLiveActivityUpdate`).
public struct ScheduledUpdate: Sendable, Equatable, Decodable {
    public var scheduleID: String
    /// When it will be sent, epoch seconds (the gateway's clock: an offset does not depend on the device's).
    public var sendAt: Int64

    enum CodingKeys: String, CodingKey {
        case scheduleID = "schedule_id"
        case sendAt = "send_at"
    }
}
