import Foundation

/// When a device-scheduled update is sent: seconds after the gateway receives it (device clock skew does not matter),
/// or at an absolute time.
public enum UpdateTime: Sendable, Equatable {
    case after(seconds: Int)
    case at(Date)
}
