/// A broadcast channel's message storage policy, as the API names it.
///
/// Apple's `message-storage-policy` (paraphrased): 0 stores no message and has the higher send budget; 1 keeps the
/// latest message for up to 8 hours. A no-storage channel refuses a non-zero `apns-expiration`.
public enum BroadcastStorage: String, Sendable, Codable, CaseIterable {
    /// Apple's policy 0 (named `noStorage` in Swift: `.none` would read as Optional's nil).
    case noStorage = "none"
    case latest

    /// Apple's `message-storage-policy`.
    public var messageStoragePolicy: Int { self == .noStorage ? 0 : 1 }

    public init?(messageStoragePolicy: Int) {
        switch messageStoragePolicy {
        case 0: self = .noStorage
        case 1: self = .latest
        default: return nil
        }
    }
}
