import Foundation
import LiveActivitiesCore

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
