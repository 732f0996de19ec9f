/// What the door does with an app's contracts (`PATCH /admin/apps/{key}` `contract_policy`).
public enum ContractPolicy: String, Sendable, Codable, CaseIterable {
    /// Contracts are not read: every push passes as before.
    case off
    /// Checked and counted (`contract_refusals_total{mode="dry_run"}`), and answered as `contracts.would_refuse`,
    /// but nothing is refused or converted.
    case dryRun = "dry_run"
    /// The default: a push that an attributes type's contract refuses is refused; types without one pass.
    case enforce
    /// As `enforce`, and a push to an attributes type without a contract is refused too.
    case required
}
