/// Where APNs (or the simulator) listens.
public struct APNsEndpoint: Sendable, Hashable {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public static let production = APNsEndpoint(host: "api.push.apple.com", port: 443)
    public static let development = APNsEndpoint(host: "api.sandbox.push.apple.com", port: 443)

    public static func `for`(_ environment: APNsEnvironment) -> APNsEndpoint {
        environment == .production ? .production : .development
    }

    /// `https://host:port`.
    public init?(url: String) {
        guard url.hasPrefix("https://") else { return nil }
        let rest = url.dropFirst("https://".count).split(separator: "/").first.map(String.init) ?? ""
        let parts = rest.split(separator: ":")
        guard let host = parts.first, !host.isEmpty else { return nil }
        let port = parts.count > 1 ? Int(parts[1]) : 443
        guard let port, (1...65535).contains(port) else { return nil }
        self.init(host: String(host), port: port)
    }
}
