import APNsBroadcast
import APNsTransport
import BroadcastManagement
import Delivery
import Foundation
import Hummingbird
import LiveActivitiesCore
import Logging
import Metrics
import NIOCore
import NIOSSL
import PostgresStore
import Prometheus
import ServiceLifecycle

/// The APNs client of this worker: Apple's hosts, or `APNS_ENDPOINT` trusting `APNS_CA_FILE`.
func makeAPNsClient(
    configuration: WorkerConfiguration, expressEventLoop: (any EventLoop)? = nil, logger: Logger
) throws -> APNsClient {
    var apns = APNsClientConfiguration()
    apns.connectionsPerPool = configuration.apnsConnections
    apns.maxConcurrentStreams = configuration.apnsMaxStreams
    apns.requestTimeout = configuration.apnsRequestTimeout
    apns.endpointOverride = configuration.apnsEndpoint
    if let file = configuration.apnsCAFile {
        do {
            apns.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(file))
        } catch {
            throw ConfigError(
                setting: WorkerConfiguration.apnsCAFile.label, problem: "is not a readable PEM certificate file")
        }
    }
    return try APNsClient(configuration: apns, expressEventLoop: expressEventLoop, logger: logger)
}

/// Closes the APNs connections when the group shuts down. It stands before the job runner in the group, so it
/// stops after the runner has drained.
/// The APNs client's life: every 5 s each pool's sizing window ends (a pool that needs fewer connections uses and
/// keeps fewer), pools no send took for `idle` are closed every minute (an app that stopped sending, a key that was
/// replaced or deleted), and every connection at shutdown.
struct APNsClientService: Service {
    let client: APNsClient
    /// `worker_apns_connections_in_use`: bulk connections the pools use, summed (each pool also has an express one).
    let connectionsInUse: Metrics.Gauge
    var idle: Duration = .seconds(600)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var ticks = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(5))
                if Task.isCancelled { break }
                self.client.resizePools()
                self.connectionsInUse.record(self.client.connectionsInUse.reduce(0, +))
                ticks += 1
                if ticks % 12 == 0 { await self.client.closeIdlePools(idle: self.idle) }
            }
        }
        await self.client.shutdown()
    }
}

/// The worker process: the Postgres pool, the job runner, and a small `/healthz` + `/metrics` listener.
/// It refuses to run against a schema it does not know.
func buildWorker(configuration: WorkerConfiguration) async throws -> ServiceGroup {
    var logger = Logger(label: "worker")
    logger.logLevel = configuration.logLevel
    let database = Database(
        url: configuration.databaseURL, maxConnections: configuration.databasePoolSize, keepsOneOpen: true,
        logger: Logger(label: "worker.postgres"))
    let registry = PrometheusCollectorRegistry()
    let metrics = PrometheusMetricsFactory(registry: registry)
    let express = ExpressLane(
        url: configuration.databaseURL, maxConnections: 6, logger: Logger(label: "worker.postgres.express"))
    let queue = PostgresJobQueue(database: express.database)
    var runnerConfiguration = configuration.runner
    runnerConfiguration.express = express.executor
    runnerConfiguration.bulkKinds = [PushBatchJob.kind]
    var apnsLogger = Logger(label: "worker.apns")
    apnsLogger.logLevel = configuration.logLevel
    let apns = try makeAPNsClient(configuration: configuration, expressEventLoop: express.eventLoop, logger: apnsLogger)
    // Broadcasts and channel maintenance share the provider tokens of the per-token client, and live on the express
    // lane's loop: never queued behind the fan-out connections' reads and writes on the other loops.
    let broadcast = APNsBroadcastClient(
        endpoints: configuration.broadcastEndpoints,
        trustRoots: try BroadcastConfiguration.trustRoots(file: configuration.apnsCAFile), tokens: apns.tokens,
        eventLoopGroup: express.eventLoop)
    let handlers = DeliveryJobs.handlers(
        database: database, express: express.database, masterKey: configuration.masterKey, metrics: metrics,
        apns: apns, broadcast: broadcast, settings: configuration.delivery)
    let runner = JobRunner(
        queue: queue,
        wakeups: queue,
        handlers: handlers,
        configuration: runnerConfiguration,
        metrics: metrics,
        logger: logger
    )
    let router = Router()
    let health = WorkerHealth(database: database, listening: runner.listening)
    router.get("healthz") { _, _ in
        if let problem = await health.problem() { throw HTTPError(.serviceUnavailable, message: problem) }
        return "ok"
    }
    router.get("metrics") { _, _ in
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
    }
    var app = Application(
        router: router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "worker"),
        logger: logger
    )
    app.beforeServerStarts {
        try await Migrator(database: database).requireCurrent()
    }
    // The HTTP listener starts (and checks the schema) before the runner is given work by its first claim;
    // a schema mismatch fails the listener, which ends the whole group.
    return ServiceGroup(
        configuration: .init(
            services: [
                .init(service: express),
                .init(
                    service: BulkThreadPriority(
                        expressEventLoop: express.eventLoop, offset: Int32(configuration.bulkNice))),
                .init(service: database.client),
                .init(service: app),
                .init(
                    service: APNsClientService(
                        client: apns,
                        connectionsInUse: Metrics.Gauge(label: "worker_apns_connections_in_use", factory: metrics))
                ),
                .init(service: BroadcastClientService(client: broadcast)),
                .init(
                    service: SchemaGatedService(database: database, wrapped: runner) {
                        // Every recurring job's current slot (each run queues its next).
                        for case let job as any RecurringJob in handlers.values { try await job.scheduleNext() }
                    }),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        ).shuttingDownWithin(.seconds(configuration.shutdownSeconds))
    )
}

/// Runs `wrapped` only once the schema is known to be current.
/// `prepare` runs first (e.g. queueing recurring maintenance).
struct SchemaGatedService: Service {
    let database: Database
    let wrapped: any Service
    var prepare: @Sendable () async throws -> Void = {}

    func run() async throws {
        try await Migrator(database: self.database).requireCurrent()
        try await self.prepare()
        try await self.wrapped.run()
    }
}
