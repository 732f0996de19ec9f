/// Where a schedule is (`schedules.state`): pending until its time, then fired (a push was made), skipped (its
/// activity had ended, or its push no longer validates) or canceled.
public enum ScheduleState: String, Sendable, Codable, CaseIterable {
    case pending, fired, skipped, canceled
}
