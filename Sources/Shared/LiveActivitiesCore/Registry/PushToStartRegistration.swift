import Foundation

/// `PUT /api/channels/{id}/push-to-start/{attributes_type}`: `{"token": "<hex>", "contract_version": 3}`.
public struct PushToStartRegistration: Sendable, Equatable, Decodable {
    public var token: String
    /// The contract version of the type that the app's build carries (docs/contracts.md); 0 when not given.
    public var contractVersion: Int

    enum CodingKeys: String, CodingKey, CaseIterable {
        case token
        case contractVersion = "contract_version"
    }

    public init(token: String, contractVersion: Int = 0) {
        self.token = token
        self.contractVersion = contractVersion
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.token = try RegistryRules.token(c.decode(String.self, forKey: .token), path: "token")
        self.contractVersion = try RegistryRules.contractVersion(c, .contractVersion)
    }
}
