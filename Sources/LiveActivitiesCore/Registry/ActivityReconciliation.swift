import Foundation

/// `POST /api/channels/{id}/live-activities/reconcile`: the activities the app still has.
public struct ActivityReconciliation: Sendable, Equatable, Decodable {
    public var systemActivityIDs: [String]

    enum CodingKeys: String, CodingKey, CaseIterable { case systemActivityIDs = "system_activity_ids" }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.systemActivityIDs = try c.decode([String].self, forKey: .systemActivityIDs)
        guard self.systemActivityIDs.count <= 1000 else {
            throw ValidationError(path: "system_activity_ids", rule: "must list at most 1000 ids")
        }
        for (index, id) in self.systemActivityIDs.enumerated() {
            try RegistryRules.systemActivityID(id, path: "system_activity_ids[\(index)]")
        }
    }
}
