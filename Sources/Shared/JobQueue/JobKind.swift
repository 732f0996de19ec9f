import NIOCore
import PostgresDatabase
import PostgresNIO

/// A kind of job, by which the runner finds its handler (`DeliveryJobs.handlers`). The kinds this build runs are
/// the statics; the type stays open so that a queue holding a kind of another build (a rollout) still decodes.
/// Stored as text through PostgresNIO's coding.
public struct JobKind: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { self.rawValue }

    /// Resolves a push's audience and sends it, or splits it into batches (`PushFanoutJob`).
    public static let pushFanout: JobKind = "push.fanout"
    /// Sends one batch of a push (`PushBatchJob`).
    public static let pushBatch: JobKind = "push.batch"
    /// Fires the schedules that are due (`ScheduleFireJob`).
    public static let scheduleFire: JobKind = "schedule.fire"
    /// Recurring: purges what the registry keeps past its retention.
    public static let registryPurge: JobKind = "maintenance.registry_purge"
    /// Recurring: deletes the delivery history past each app's retention; scrubs forgotten channels' ids.
    public static let retention: JobKind = "maintenance.retention"
    /// Recurring: ends activities idle past their app's policy.
    public static let idleEnd: JobKind = "maintenance.idle_end"
    /// Recurring: deletes idle broadcast channels and compares the rest with Apple's list.
    public static let broadcastMaintenance: JobKind = "maintenance.broadcast_channels"
    /// Recurring: renews activities past their app's `renew` policy (an end and a push-to-start).
    public static let renew: JobKind = "maintenance.renew"
    /// Recurring: writes the final start counts of start pushes whose confirmation window closed.
    public static let settleStarts: JobKind = "maintenance.start_settle"
    /// Recurring: folds deferred delivery stamps into their instances.
    public static let foldStamps: JobKind = "delivery.fold_stamps"
}

extension JobKind: PostgresTextEnum, PostgresArrayEncodable, PostgresArrayDecodable {
    public static var psqlArrayType: PostgresDataType { .textArray }
}
