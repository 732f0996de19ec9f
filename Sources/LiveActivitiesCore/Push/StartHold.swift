/// Why a start was not sent to one push-to-start token (issue 26), as the target's select decides it.
public enum StartHold: Int, Sendable, Equatable {
    /// Sent.
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
}
