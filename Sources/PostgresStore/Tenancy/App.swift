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

/// The two secrets of an app, shown once: at creation and at rotation.
public struct AppSecrets: Sendable, Codable, Equatable {
    public var appSecret: String
    public var masterSecret: String

    public static func generate() -> AppSecrets {
        AppSecrets(appSecret: Credentials.generate(), masterSecret: Credentials.generate())
    }

    enum CodingKeys: String, CodingKey {
        case appSecret = "app_secret"
        case masterSecret = "master_secret"
    }
}

/// What authentication needs to check a Basic credential.
public struct AppAuthRecord: Sendable {
    public var id: Int64
    public var appKey: String
    public var appSecretHash: SecretHash
    public var masterSecretHash: SecretHash

    public init(id: Int64, appKey: String, appSecretHash: SecretHash, masterSecretHash: SecretHash) {
        self.id = id
        self.appKey = appKey
        self.appSecretHash = appSecretHash
        self.masterSecretHash = masterSecretHash
    }

    public enum Role: Sendable, Equatable {
        /// `app_key:master_secret`: server-to-server calls.
        case server
        /// `app_key:app_secret`: device calls, limited to the channel they name.
        case device
    }

    /// Which role `secret` grants, if any. Both comparisons always run, so timing says nothing of which matched.
    public func role(for secret: String) -> Role? {
        let isMaster = self.masterSecretHash.matches(secret)
        let isApp = self.appSecretHash.matches(secret)
        if isMaster { return .server }
        if isApp { return .device }
        return nil
    }
}
