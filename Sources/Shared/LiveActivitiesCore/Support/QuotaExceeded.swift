/// A write that would take an app past one of its quotas (`max_pending_updates_per_activity`,
/// `max_pending_updates`, `max_schedules`, `max_tags_per_channel`): nothing was written.
public struct QuotaExceeded: Error, Equatable, Sendable {
    public var quota: String
    public var limit: Int

    public init(quota: String, limit: Int) {
        self.quota = quota
        self.limit = limit
    }
}
