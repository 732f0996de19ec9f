/// Which APNs service a key talks to: production or the sandbox (development).
public enum APNsEnvironment: String, Sendable, Codable, CaseIterable {
    case production, development
}
