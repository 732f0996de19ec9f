import NIOSSL

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

public struct APNsClientConfiguration: Sendable {
    /// Long-lived connections per (team, key, environment), besides the express one.
    public var connectionsPerPool: Int = 8
    /// Our own cap on streams per connection (the peer's SETTINGS may lower it). Depth is cheaper in connections
    /// than in streams: NIO keeps a connection's streams in an id-sorted ring buffer and closing one answered out
    /// of order shifts the rest, so CPU per request grows with streams in flight. Measured client + simulator in
    /// one process: 122 µs per request at 30 streams, 124 at 100, 139 at 300, 196 at 1,000.
    public var maxConcurrentStreams: Int = 100
    /// Every request fails with `deadlineExceeded` if not answered in time, waiting included.
    public var requestTimeout: Duration = .seconds(10)
    public var connectTimeout: Duration = .seconds(10)
    /// An idle connection is PINGed after this long and closed if the PING is not answered in `pingTimeout`.
    public var pingInterval: Duration = .seconds(60)
    public var pingTimeout: Duration = .seconds(10)
    /// Reconnect backoff after a lost connection: doubles from `reconnectBase` up to `reconnectCap`, jittered.
    public var reconnectBase: Duration = .milliseconds(100)
    public var reconnectCap: Duration = .seconds(30)
    /// The most requests one `send` call has outstanding at once: larger batches go in windows, so a caller
    /// waits (backpressure) instead of queueing without bound.
    public var window: Int = 4000
    /// A `send` of at most this many requests (a single-activity update, a schedule firing) goes over one more
    /// connection per pool that bulk traffic never uses: behind a fan-out's thousands of streams in flight it would
    /// wait as long as they do. 0 sends everything over the bulk connections.
    public var expressMaxRequests: Int = 64
    /// Send everything here instead of Apple's hosts (the simulator), trusting `trustRoots`.
    public var endpointOverride: APNsEndpoint?
    public var trustRoots: NIOSSLTrustRoots?

    public init() {}
}
