/// Whether an app uses contracts, carried on its cached authentication record so that the door reads nothing for an
/// app without any (docs/contracts.md). A change (a contract put or deleted, the policy set) is announced on
/// `app_changed` and reaches every gateway's cache within about a second; the gateway that made it drops its entry
/// at once.
public struct ContractUse: Sendable, Equatable {
    public var policy: ContractPolicy
    /// Whether the app has stored any contract.
    public var hasContracts: Bool

    public init(policy: ContractPolicy, hasContracts: Bool) {
        self.policy = policy
        self.hasContracts = hasContracts
    }

    /// Whether a push must be checked: contracts exist and are not off, or the policy refuses types without one.
    public var needsCheck: Bool {
        switch self.policy {
        case .off: false
        case .required: true
        case .dryRun, .enforce: self.hasContracts
        }
    }

    /// The default of an app without contracts.
    public static let none = ContractUse(policy: .enforce, hasContracts: false)
}
