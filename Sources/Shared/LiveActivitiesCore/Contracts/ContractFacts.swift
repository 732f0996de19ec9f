/// What the door needs to check one push, read in one statement: the app's policy, the types and versions live in
/// the push's target (an index probe per version, never a scan of the audience), and those types' contracts.
public struct ContractFacts: Sendable {
    public var policy: ContractPolicy
    public var live: [LiveContract]
    /// Every stored version of the types in `live` (and of a start's own type).
    public var contracts: [AttributesContract]

    public init(policy: ContractPolicy, live: [LiveContract], contracts: [AttributesContract]) {
        self.policy = policy
        self.live = live
        self.contracts = contracts
    }

    public static let off = ContractFacts(policy: .off, live: [], contracts: [])
}
