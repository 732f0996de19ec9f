import LiveActivitiesCore

/// The APNs environment an app's key belongs to, as stored (`apps.apns_environment`).
public enum AppEnvironment: String, Sendable, Codable, CaseIterable {
    case production, development
}
