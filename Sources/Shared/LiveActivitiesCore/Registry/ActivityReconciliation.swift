import Foundation

/// `POST /api/channels/{id}/live-activities/reconcile`: the activities the app still has; with `attributes_types`,
/// only instances of those types may end (an app that restores one type at a time ends none of another's).
public struct ActivityReconciliation: Sendable, Equatable, Decodable {
    public var systemActivityIDs: [String]
    public var attributesTypes: [String]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case systemActivityIDs = "system_activity_ids"
        case attributesTypes = "attributes_types"
    }

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
        self.attributesTypes = try c.decodeIfPresent([String].self, forKey: .attributesTypes)
        if let types = self.attributesTypes {
            guard !types.isEmpty, types.count <= 100 else {
                throw ValidationError(path: "attributes_types", rule: "must list 1 to 100 attributes types")
            }
            for (index, type) in types.enumerated() {
                try RegistryRules.attributesType(type, path: "attributes_types[\(index)]")
            }
        }
    }
}
