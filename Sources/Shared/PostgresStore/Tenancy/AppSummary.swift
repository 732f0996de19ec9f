import Foundation
import LiveActivitiesCore

/// An app as an operator sees it. Never carries a secret or key material.
public struct AppSummary: Sendable, Codable, Equatable {
    public var appKey: String
    public var name: String
    public var bundleID: String
    public var teamID: String
    public var keyID: String
    public var environment: AppEnvironment
    public var createdAt: Date
    public var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case appKey = "app_key"
        case name
        case bundleID = "bundle_id"
        case teamID = "team_id"
        case keyID = "key_id"
        case environment
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
