import APNsBroadcast
import BroadcastManagement
import LiveActivitiesCore
import Logging
import NIOCore
import PostgresStore

/// Everything the gateway reads at start. Flags win over environment variables.
struct GatewayConfiguration: Sendable {
    static let host = Setting(flag: "host", environment: "GATEWAY_HOST")
    static let port = Setting(flag: "port", environment: "GATEWAY_PORT")
    static let adminToken = Setting(flag: "admin-token", environment: "ADMIN_TOKEN")
    static let metricsToken = Setting(flag: "metrics-token", environment: "METRICS_TOKEN")
    static let readDatabaseURL = Setting(flag: "database-read-url", environment: "DATABASE_READ_URL")
    static let headerTimeout = Setting(flag: "http-header-timeout", environment: "HTTP_HEADER_TIMEOUT")
    static let idleTimeout = Setting(flag: "http-idle-timeout", environment: "HTTP_IDLE_TIMEOUT")
    static let maxConnections = Setting(flag: "http-max-connections", environment: "HTTP_MAX_CONNECTIONS")
    static let maxBodyBytes = Setting(flag: "max-body-bytes", environment: "MAX_BODY_BYTES")
    static let databasePoolSize = Setting(flag: "database-pool-size", environment: "DATABASE_POOL_SIZE")
    static let eventLoopThreads = Setting(flag: "event-loop-threads", environment: "GATEWAY_EVENT_LOOP_THREADS")
    static let shedTarget = Setting(flag: "shed-target-ms", environment: "GATEWAY_SHED_TARGET_MS")
    static let shutdownSeconds = Setting(flag: "shutdown-seconds", environment: "GATEWAY_SHUTDOWN_SECONDS")

    /// The settings `gateway serve` reads; deployment files are checked against these names.
    static let settings: [Setting] = [
        CommonSettings.databaseURL, CommonSettings.logLevel, CommonSettings.masterKey,
        CommonSettings.migrationsDirectory, host, port, adminToken, maxBodyBytes, databasePoolSize,
        eventLoopThreads, BroadcastConfiguration.manageEndpoint, BroadcastConfiguration.caFile,
        CommonSettings.statementTimeout, metricsToken, headerTimeout, idleTimeout, maxConnections, readDatabaseURL,
        shedTarget, shutdownSeconds,
    ]

    var host: String
    var port: Int
    var databaseURL: DatabaseURL
    var databasePoolSize: Int
    /// The threads that serve HTTP and hold the PostgreSQL connections (one group: a handler runs on its
    /// connection's loop; with one thread, every query's connection is on that loop too, so no call changes threads).
    var eventLoopThreads: Int
    var adminToken: String
    var masterKey: MasterKey
    var logLevel: Logger.Level
    var maxBodyBytes: Int
    /// Apple's channel management (or the simulator's), and the roots to trust there.
    var broadcastEndpoints = APNsBroadcastEndpoints()
    var apnsCAFile: String?
    /// A streaming replica for reports and lists (DATABASE_READ_URL), which tolerate its lag.
    var readDatabaseURL: DatabaseURL?
    /// When set, `/metrics` wants `Authorization: Bearer <token>` (METRICS_TOKEN).
    var metricsToken: String?
    /// How often the gauges that read PostgreSQL are refreshed (a scrape reads the last values).
    var gaugeInterval: Duration = .seconds(15)
    /// A connection's next request head must be complete this soon after it opened or its last response ended
    /// (HTTP_HEADER_TIMEOUT, seconds); a connection with no traffic at all is closed after `httpIdleTimeout`
    /// (HTTP_IDLE_TIMEOUT); at most `httpMaxConnections` are open at once (HTTP_MAX_CONNECTIONS; more wait to be
    /// accepted).
    var httpHeaderTimeout = 30
    var httpIdleTimeout = 60
    var httpMaxConnections = 10_000
    /// Shed `/api` requests beyond a limit on those in flight that falls while even the fastest of 100 ms took longer
    /// than this (GATEWAY_SHED_TARGET_MS; 0, the default: never). Off by default: the target must sit above the
    /// database's round trip, which only the operator knows (docs/operations.md, "Faults").
    var shedTarget: Duration?
    /// The lowest limit on requests in flight (they keep measuring); default: the database pool's size.
    var shedFloor: Int?
    /// After SIGTERM the server drains its requests, then the pools close; the gateway exits within this whatever
    /// waits (a database connection left half-open by the network), cancelling what still runs
    /// (GATEWAY_SHUTDOWN_SECONDS, default 20: with the 5 s for cancelling, within the 30 s Kubernetes allows).
    var shutdownSeconds = 20

    static let minimumAdminTokenLength = 16

    init(
        host: String = "127.0.0.1", port: Int = 8080, databaseURL: DatabaseURL, databasePoolSize: Int = 20,
        eventLoopThreads: Int = System.coreCount, adminToken: String, masterKey: MasterKey,
        logLevel: Logger.Level = .info, maxBodyBytes: Int = 64 * 1024
    ) {
        self.host = host
        self.port = port
        self.databaseURL = databaseURL
        self.databasePoolSize = databasePoolSize
        self.eventLoopThreads = eventLoopThreads
        self.adminToken = adminToken
        self.masterKey = masterKey
        self.logLevel = logLevel
        self.maxBodyBytes = maxBodyBytes
    }

    init(options: GatewayOptions, environment: [String: String]) throws {
        let resolve = SettingsResolver(environment: environment)
        let token = try resolve.required(Self.adminToken, flag: options.adminToken)
        guard token.count >= Self.minimumAdminTokenLength else {
            throw ConfigError(
                setting: Self.adminToken.label,
                problem: "must be at least \(Self.minimumAdminTokenLength) characters")
        }
        self.init(
            host: resolve.value(Self.host, flag: options.host) ?? "127.0.0.1",
            port: try resolve.integer(Self.port, flag: options.port, default: 8080, range: 0...65535),
            databaseURL: try resolve.databaseURL(CommonSettings.databaseURL, flag: options.databaseURL),
            databasePoolSize: try resolve.integer(
                Self.databasePoolSize, flag: options.databasePoolSize, default: 20, range: 1...500),
            eventLoopThreads: try resolve.integer(
                Self.eventLoopThreads, flag: options.eventLoopThreads, default: System.coreCount, range: 1...256),
            adminToken: token,
            masterKey: try resolve.masterKey(CommonSettings.masterKey, flag: options.masterKey),
            logLevel: try resolve.logLevel(CommonSettings.logLevel, flag: options.logLevel),
            maxBodyBytes: try resolve.integer(
                Self.maxBodyBytes, flag: options.maxBodyBytes, default: 64 * 1024, range: 1024...(16 * 1024 * 1024))
        )
        self.broadcastEndpoints = try BroadcastConfiguration.endpoints(
            resolve, manage: options.apnsManageEndpoint, send: nil)
        self.apnsCAFile = resolve.value(BroadcastConfiguration.caFile, flag: options.apnsCAFile)
        self.metricsToken = resolve.value(Self.metricsToken, flag: nil)
        if resolve.value(Self.readDatabaseURL, flag: nil) != nil {
            self.readDatabaseURL = try resolve.databaseURL(Self.readDatabaseURL, flag: nil)
        }
        self.httpHeaderTimeout = try resolve.integer(Self.headerTimeout, flag: nil, default: 30, range: 1...3600)
        self.httpIdleTimeout = try resolve.integer(Self.idleTimeout, flag: nil, default: 60, range: 1...86_400)
        self.httpMaxConnections = try resolve.integer(
            Self.maxConnections, flag: nil, default: 10_000, range: 1...1_000_000)
        let shed = try resolve.integer(Self.shedTarget, flag: nil, default: 0, range: 0...60_000)
        self.shedTarget = shed == 0 ? nil : .milliseconds(shed)
        self.shutdownSeconds = try resolve.integer(Self.shutdownSeconds, flag: nil, default: 20, range: 1...3600)
    }
}
