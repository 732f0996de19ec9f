import APNsBroadcast
import APNsCommon
import APNsTransport
import BroadcastManagement
import Delivery
import LiveActivitiesCore
import Logging
import PostgresStore

/// Everything the worker reads at start. Flags win over environment variables.
struct WorkerConfiguration: Sendable {
    static let concurrency = Setting(flag: "concurrency", environment: "WORKER_CONCURRENCY")
    static let workerID = Setting(flag: "worker-id", environment: "WORKER_ID")
    static let leaseSeconds = Setting(flag: "lease-seconds", environment: "WORKER_LEASE_SECONDS")
    static let shutdownSeconds = Setting(flag: "shutdown-seconds", environment: "WORKER_SHUTDOWN_SECONDS")
    static let host = Setting(flag: "host", environment: "WORKER_HOST")
    static let port = Setting(flag: "port", environment: "WORKER_PORT")
    static let databasePoolSize = Setting(flag: "database-pool-size", environment: "DATABASE_POOL_SIZE")
    static let apnsEndpoint = Setting(flag: "apns-endpoint", environment: "APNS_ENDPOINT")
    static let apnsCAFile = Setting(flag: "apns-ca-file", environment: "APNS_CA_FILE")
    static let apnsConnections = Setting(flag: "apns-connections", environment: "APNS_CONNECTIONS")
    static let apnsMaxStreams = Setting(flag: "apns-max-streams", environment: "APNS_MAX_STREAMS")
    static let apnsRequestTimeout = Setting(
        flag: "apns-request-timeout-seconds", environment: "APNS_REQUEST_TIMEOUT_SECONDS")
    static let pushBatchSize = Setting(flag: "push-batch-size", environment: "PUSH_BATCH_SIZE")
    static let pushChunkSize = Setting(flag: "push-chunk-size", environment: "PUSH_CHUNK_SIZE")
    static let bulkNice = Setting(flag: "bulk-nice", environment: "WORKER_BULK_NICE")

    /// The settings `worker` reads; deployment files are checked against these names.
    static let settings: [Setting] = [
        CommonSettings.databaseURL, CommonSettings.logLevel, CommonSettings.masterKey,
        concurrency, workerID, leaseSeconds, host, port, databasePoolSize, apnsEndpoint, apnsCAFile, apnsConnections,
        apnsMaxStreams, apnsRequestTimeout, pushBatchSize, pushChunkSize, BroadcastConfiguration.manageEndpoint,
        BroadcastConfiguration.sendEndpoint, CommonSettings.statementTimeout, shutdownSeconds, bulkNice,
    ]

    var databaseURL: DatabaseURL
    var databasePoolSize: Int
    var masterKey: MasterKey
    var logLevel: Logger.Level
    var runner: JobRunnerConfiguration
    /// The worker's own `/healthz` and `/metrics` listener.
    var host: String
    var port: Int
    /// Where to send instead of Apple (the simulator), and the PEM file of the roots to trust there.
    var apnsEndpoint: APNsEndpoint?
    var apnsCAFile: String?
    /// Apple's broadcast hosts (or the simulator's).
    var broadcastEndpoints = APNsBroadcastEndpoints()
    var apnsConnections = APNsClientConfiguration().connectionsPerPool
    var apnsMaxStreams = APNsClientConfiguration().maxConcurrentStreams
    /// How long a request to APNs may go unanswered before it fails and is retried (default 10 s).
    var apnsRequestTimeout = APNsClientConfiguration().requestTimeout
    var delivery = DeliverySettings()
    /// After SIGTERM, batches stop at their next chunk boundary (the cursor saved, the job queued again) and the
    /// worker exits within this; what is still running then is cancelled (WORKER_SHUTDOWN_SECONDS, default 25).
    var shutdownSeconds = 25
    /// Nice levels the bulk threads (fan-out batches) run below the express lane's thread, 0 to 19
    /// (WORKER_BULK_NICE, default 5; 0: the same priority). See `BulkThreadPriority`.
    var bulkNice = 5

    init(
        databaseURL: DatabaseURL, databasePoolSize: Int = 4, masterKey: MasterKey, logLevel: Logger.Level = .info,
        runner: JobRunnerConfiguration = .init(), host: String = "127.0.0.1", port: Int = 9090
    ) {
        self.databaseURL = databaseURL
        self.databasePoolSize = databasePoolSize
        self.masterKey = masterKey
        self.logLevel = logLevel
        self.runner = runner
        self.host = host
        self.port = port
    }

    init(options: WorkerCommand, environment: [String: String]) throws {
        let resolve = SettingsResolver(environment: environment)
        var runner = JobRunnerConfiguration()
        runner.concurrency = try resolve.integer(
            Self.concurrency, flag: options.concurrency, default: 16, range: 1...1024)
        runner.lease = .seconds(
            try resolve.integer(Self.leaseSeconds, flag: options.leaseSeconds, default: 30, range: 2...3600))
        if let id = resolve.value(Self.workerID, flag: options.workerID) {
            guard id.utf8.count <= 64 else {
                throw ConfigError(setting: Self.workerID.label, problem: "must be at most 64 bytes")
            }
            runner.owner = id
        }
        self.init(
            databaseURL: try resolve.databaseURL(CommonSettings.databaseURL, flag: options.databaseURL),
            // 4, not more: a fan-out's batches (12 a worker) share them, and with 12 a worker's chunk statements all
            // started at once kept PostgreSQL's run queue long enough to hold another app's single update back
            // 60-150 ms, with no gain in speed (`make bench-fanout`, docs/benchmarks.md).
            databasePoolSize: try resolve.integer(
                Self.databasePoolSize, flag: options.databasePoolSize, default: 4, range: 2...500),
            masterKey: try resolve.masterKey(CommonSettings.masterKey, flag: options.masterKey),
            logLevel: try resolve.logLevel(CommonSettings.logLevel, flag: options.logLevel),
            runner: runner,
            host: resolve.value(Self.host, flag: options.host) ?? "127.0.0.1",
            port: try resolve.integer(Self.port, flag: options.port, default: 9090, range: 0...65535)
        )
        if let endpoint = resolve.value(Self.apnsEndpoint, flag: options.apnsEndpoint) {
            guard let parsed = APNsEndpoint(url: endpoint) else {
                throw ConfigError(setting: Self.apnsEndpoint.label, problem: "must be an https://host:port URL")
            }
            self.apnsEndpoint = parsed
        }
        self.apnsCAFile = resolve.value(Self.apnsCAFile, flag: options.apnsCAFile)
        self.shutdownSeconds = try resolve.integer(Self.shutdownSeconds, flag: nil, default: 25, range: 1...3600)
        self.broadcastEndpoints = try BroadcastConfiguration.endpoints(
            resolve, manage: options.apnsManageEndpoint, send: options.apnsBroadcastEndpoint)
        self.apnsConnections = try resolve.integer(
            Self.apnsConnections, flag: options.apnsConnections, default: self.apnsConnections, range: 1...64)
        self.apnsMaxStreams = try resolve.integer(
            Self.apnsMaxStreams, flag: options.apnsMaxStreams, default: self.apnsMaxStreams, range: 1...1000)
        self.apnsRequestTimeout = .seconds(
            try resolve.integer(
                Self.apnsRequestTimeout, flag: options.apnsRequestTimeoutSeconds, default: 10, range: 1...300))
        self.bulkNice = try resolve.integer(
            Self.bulkNice, flag: options.bulkNice, default: self.bulkNice, range: 0...19)
        self.delivery.batchSize = try resolve.integer(
            Self.pushBatchSize, flag: options.pushBatchSize, default: 10_000, range: 1...1_000_000)
        self.delivery.chunkSize = try resolve.integer(
            Self.pushChunkSize, flag: options.pushChunkSize, default: self.delivery.chunkSize, range: 1...100_000)
        // Fan-out batches take at most three quarters of the slots: the rest stay free for single updates,
        // schedules and fan-outs of other apps.
        self.runner.kindLimits[PushBatchJob.kind] = max(1, self.runner.concurrency * 3 / 4)
    }
}
