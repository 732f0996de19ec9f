import Foundation

/// Stand-in for ActivityKit's `ActivityUIDismissalPolicy` (iOS 16.1+).
///
/// Apple: "The structure that describes when the system should remove a Live Activity that ended."
/// `struct ActivityUIDismissalPolicy`
/// <https://developer.apple.com/documentation/activitykit/activityuidismissalpolicy>
public struct ActivityUIDismissalPolicy: Sendable, Equatable {
    enum Kind: Equatable {
        case standard, immediate
        case after(Date)
    }
    let kind: Kind

    /// "With the default dismissal policy, the system keeps a Live Activity that ended on the Lock Screen for up to
    /// four hours after it ends or a person removes it. The ActivityState doesn't change to ActivityState.dismissed
    /// until a person or the system removes the Live Activity user interface." `static let default`
    public static let `default` = ActivityUIDismissalPolicy(kind: .standard)

    /// "With the immediate dismissal policy, the system immediately removes the ended Live Activity and the
    /// ActivityState changes to ActivityState.dismissed." `static let immediate`
    public static let immediate = ActivityUIDismissalPolicy(kind: .immediate)

    /// "The system removes the Live Activity that ended at the specified time within a four-hour window."
    /// `static func after(_ date: Date) -> ActivityUIDismissalPolicy`
    public static func after(_ date: Date) -> ActivityUIDismissalPolicy {
        ActivityUIDismissalPolicy(kind: .after(date))
    }
}
