import Foundation

/// A schedule as the API shows it.
public struct ScheduleSummary: Sendable, Encodable, Equatable {
    public var scheduleID: UUID
    public var name: String?
    public var state: ScheduleState
    public var sendAt: Date
    public var pushID: UUID?
    public var skipReason: String?
    public var push: JSONValue

    public init(
        scheduleID: UUID, name: String?, state: ScheduleState, sendAt: Date, pushID: UUID?, skipReason: String?,
        push: JSONValue
    ) {
        self.scheduleID = scheduleID
        self.name = name
        self.state = state
        self.sendAt = sendAt
        self.pushID = pushID
        self.skipReason = skipReason
        self.push = push
    }

    enum CodingKeys: String, CodingKey {
        case scheduleID = "schedule_id"
        case name, state, push
        case sendAt = "scheduled_time"
        case pushID = "push_id"
        case skipReason = "skip_reason"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(self.scheduleID.uuidString.lowercased(), forKey: .scheduleID)
        try c.encode(self.name, forKey: .name)
        try c.encode(self.state, forKey: .state)
        try c.encode(self.sendAt, forKey: .sendAt)
        try c.encode(self.pushID?.uuidString.lowercased(), forKey: .pushID)
        try c.encode(self.skipReason, forKey: .skipReason)
        try c.encode(self.push, forKey: .push)
    }
}

public enum ScheduleError: Error, Equatable, Sendable {
    /// The channel has no current instance under that name.
    case activityNotTracked(name: String)
    /// Only a pending schedule can change.
    case notPending(state: ScheduleState)
}

/// The attribution of a launch: the schedule of the latest update that reached the instance (nil when none).
public struct LaunchAttribution: Sendable, Codable, Equatable {
    public var scheduleID: UUID?
    public var scheduleName: String?
    public var pushID: UUID?

    public init(scheduleID: UUID?, scheduleName: String?, pushID: UUID?) {
        self.scheduleID = scheduleID
        self.scheduleName = scheduleName
        self.pushID = pushID
    }

    enum CodingKeys: String, CodingKey {
        case scheduleID = "schedule_id"
        case scheduleName = "schedule_name"
        case pushID = "push_id"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(self.scheduleID?.uuidString.lowercased(), forKey: .scheduleID)
        try c.encode(self.scheduleName, forKey: .scheduleName)
        try c.encode(self.pushID?.uuidString.lowercased(), forKey: .pushID)
    }
}

/// Schedules of one app. Each call is one transaction, scoped by app id.
public protocol ScheduleStore: Sendable {
    func create(appID: Int64, _ requests: [ScheduleRequest], now: Date) async throws -> [(id: UUID, sendAt: Date)]
    /// Throws `RegistryError.channelNotFound` or `ScheduleError.activityNotTracked`. With an idempotency key used
    /// before on this channel for an update, writes nothing and returns the first answer.
    func scheduleUpdate(
        appID: Int64, channelID: UUID, name: String, _ request: ActivityUpdateRequest, now: Date,
        idempotencyKey: String?
    ) async throws -> (id: UUID, sendAt: Date)
    /// Cancels the pending updates of that channel and name only; how many.
    func cancelUpdates(appID: Int64, channelID: UUID, name: String) async throws -> Int
    func list(appID: Int64, limit: Int) async throws -> [ScheduleSummary]
    func get(appID: Int64, id: UUID) async throws -> ScheduleSummary?
    /// nil when not found; throws `ScheduleError.notPending` once it fired or was canceled.
    func replace(appID: Int64, id: UUID, _ request: ScheduleRequest, now: Date) async throws -> ScheduleSummary?
    /// False when not found; throws `ScheduleError.notPending` once it fired.
    func delete(appID: Int64, id: UUID) async throws -> Bool
    /// Records a launch; with an idempotency key used before on this channel for a launch, records nothing and
    /// returns the first answer.
    func launch(appID: Int64, channelID: UUID, systemActivityID: String, idempotencyKey: String?) async throws
        -> LaunchAttribution
}
