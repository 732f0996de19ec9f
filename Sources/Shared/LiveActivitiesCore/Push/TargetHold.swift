/// What the select of a chunk decided for one target before it is sent (issue 26): a start held back, or an update
/// whose priority the app's update budget governs.
public enum TargetHold: Int, Sendable, Equatable {
    /// Sent as the push says.
    case none = 0
    /// The channel already shows an activity under the name, or a start for the name is still inside its
    /// confirmation window: a second start would make a duplicate (`"restart": true` sends anyway).
    case alreadyActive = 1
    /// The channel had the app's `starts_per_channel_per_hour` starts in the last hour: Apple's push-to-start budget
    /// is small and fixed, and a start past it is spent on nothing.
    case startBudget = 2
    /// The token's last starts (the app's `suspect_after_starts`) were accepted and none started: iOS no longer
    /// answers to it, most likely (the app's `skip_suspect_tokens`, default on).
    case suspectToken = 3
    /// A priority-10 update past the app's `priority_10_per_hour` for the instance's attributes type: sent at
    /// priority 5 (alerts kept), counted `downgraded`. Apple throttles frequent priority-10 updates to one activity
    /// and does not publish the budget.
    case downgrade = 4
    /// A priority-10 update within that budget: sent at 10 and counted against it.
    case budgeted = 5

    /// Not sent at all.
    public var holdsBack: Bool { self == .alreadyActive || self == .startBudget || self == .suspectToken }
}
