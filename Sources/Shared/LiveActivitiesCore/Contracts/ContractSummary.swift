import Foundation

/// One stored contract version in `GET /api/attributes-types/contracts`.
public struct ContractSummary: Sendable, Equatable, Encodable {
    public var attributesType: String
    public var version: Int
    public var updatedAt: Date

    public init(attributesType: String, version: Int, updatedAt: Date) {
        self.attributesType = attributesType
        self.version = version
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case version
        case attributesType = "attributes_type"
        case updatedAt = "updated_at"
    }
}
