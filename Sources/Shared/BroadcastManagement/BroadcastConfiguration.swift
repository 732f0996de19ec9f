import APNsBroadcast
import APNsCommon
import LiveActivitiesCore
import NIOSSL
import PostgresStore

/// The settings of Apple's broadcast hosts, read by the gateway (channel management) and the worker (both).
public enum BroadcastConfiguration {
    /// Channel management instead of Apple's `api-manage-broadcast(.sandbox).push.apple.com` (the simulator).
    public static let manageEndpoint = Setting(flag: "apns-manage-endpoint", environment: "APNS_MANAGE_ENDPOINT")
    /// Broadcast sends instead of Apple's regular APNs host, which Apple's text names.
    public static let sendEndpoint = Setting(flag: "apns-broadcast-endpoint", environment: "APNS_BROADCAST_ENDPOINT")
    /// PEM roots to trust at the overridden endpoints (shared with `APNS_ENDPOINT`).
    public static let caFile = Setting(flag: "apns-ca-file", environment: "APNS_CA_FILE")

    public static func endpoints(_ resolve: SettingsResolver, manage: String?, send: String?) throws
        -> APNsBroadcastEndpoints
    {
        APNsBroadcastEndpoints(
            manage: try Self.endpoint(resolve, Self.manageEndpoint, flag: manage),
            send: try Self.endpoint(resolve, Self.sendEndpoint, flag: send))
    }

    static func endpoint(_ resolve: SettingsResolver, _ setting: Setting, flag: String?) throws -> APNsEndpoint? {
        guard let raw = resolve.value(setting, flag: flag) else { return nil }
        guard let endpoint = APNsEndpoint(url: raw) else {
            throw ConfigError(setting: setting.label, problem: "must be an https://host:port URL")
        }
        return endpoint
    }

    /// The roots in `file`, nil for the system's.
    public static func trustRoots(file: String?) throws -> NIOSSLTrustRoots? {
        guard let file else { return nil }
        do {
            return .certificates(try NIOSSLCertificate.fromPEMFile(file))
        } catch {
            throw ConfigError(setting: Self.caFile.label, problem: "is not a readable PEM certificate file")
        }
    }
}
