import Foundation

/// `PUT /api/channels/{id}/push-to-start/{attributes_type}`: `{"token": "<hex>"}`.
public struct PushToStartRegistration: Sendable, Equatable, Decodable {
    public var token: String

    enum CodingKeys: String, CodingKey, CaseIterable { case token }

    public init(token: String) { self.token = token }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.token = try RegistryRules.token(c.decode(String.self, forKey: .token), path: "token")
    }
}
