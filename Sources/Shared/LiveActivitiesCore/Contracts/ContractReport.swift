/// What the door did with one push's contracts, answered with the push (`contracts` in `POST /api/push`'s answer).
public struct ContractReport: Sendable, Equatable, Encodable {
    /// The policy applied (`enforce`, `required`, `dry_run`); nil for a push no contract applied to.
    public var policy: ContractPolicy?
    /// The contracts the content was checked against (`MatchAttributes v3`).
    public var checked: [String]
    /// `Date` fields turned into seconds since 2001 (under `dry_run`: what would have been).
    public var converted: [ContractDateConversion]
    /// Under `dry_run`: the refusal `enforce` would have answered.
    public var wouldRefuse: Refusal?

    public struct Refusal: Sendable, Equatable, Encodable {
        public var path: String
        public var rule: String
    }

    /// One per push, in order, when a contract applied to any (an empty entry for a push none applied to); else nil.
    public static func answer(_ reports: [ContractReport?]) -> [ContractReport]? {
        guard reports.contains(where: { $0 != nil }) else { return nil }
        return reports.map { $0 ?? ContractReport(policy: nil, checked: [], converted: [], wouldRefuse: nil) }
    }

    enum CodingKeys: String, CodingKey {
        case policy, checked, converted
        case wouldRefuse = "would_refuse"
    }
}
