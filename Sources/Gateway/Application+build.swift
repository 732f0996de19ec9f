import APNsBroadcast
import BroadcastManagement
import Hummingbird
import LiveActivitiesCore
import Logging
import Metrics
import NIOCore
import NIOPosix
import PostgresStore
import Prometheus
import ServiceLifecycle

/// The pieces the routes share, built once per process (or per test).
struct GatewayDependencies: Sendable {
    var database: Database
    /// Where reports and lists read (`DATABASE_READ_URL`, a streaming replica); the primary when unset.
    var readDatabase: Database
    var apps: any AppStore
    var credentials: CredentialCache
    var limiter = RateLimiter()
    var registry: PrometheusCollectorRegistry
    var metrics: any MetricsFactory
    /// The loops that serve HTTP: the group of the database's connections.
    var eventLoopGroup: any EventLoopGroup
    /// Broadcast channels at Apple and here.
    var broadcastChannels: BroadcastChannels

    init(
        database: Database, masterKey: MasterKey, registry: PrometheusCollectorRegistry = .init(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        broadcast: APNsBroadcastClient = APNsBroadcastClient(), readDatabase: Database? = nil
    ) {
        self.database = database
        self.readDatabase = readDatabase ?? database
        self.broadcastChannels = BroadcastChannels(
            database: database, masterKey: masterKey, client: broadcast, logger: Logger(label: "gateway.broadcast"))
        self.eventLoopGroup = eventLoopGroup
        self.apps = PostgresAppStore(database: database, masterKey: masterKey)
        self.credentials = CredentialCache(store: self.apps)
        self.registry = registry
        var metrics = PrometheusMetricsFactory(registry: registry)
        let calls = PostgresActivityStore.callsPerStatementHistogram
        metrics.valueHistogramBuckets[calls.label] = calls.buckets
        self.metrics = metrics
    }
}

/// The HTTP application: routes grouped by resource, observability first, authentication per group.
/// It refuses to start against a schema it does not know. Tests call this with a database of their own.
func buildApplication(
    configuration: GatewayConfiguration,
    dependencies: GatewayDependencies,
    logger: Logger
) -> some ApplicationProtocol {
    let router = buildRouter(configuration: configuration, dependencies: dependencies)
    let headTimeout = TimeAmount.seconds(Int64(configuration.httpHeaderTimeout))
    var app = Application(
        router: router,
        server: .loopBoundHTTP1(
            configuration: .init(
                additionalChannelHandlers: [RequestHeadDeadline(timeout: headTimeout)],
                idleTimeout: .seconds(Int64(configuration.httpIdleTimeout)))),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: "gateway",
            availableConnectionsDelegate: .maximum(configuration.httpMaxConnections, logger: logger)),
        eventLoopGroupProvider: .shared(dependencies.eventLoopGroup),
        logger: logger
    )
    app.addServices(
        CredentialInvalidator(
            changes: AppChanges(database: dependencies.database), credentials: dependencies.credentials,
            logger: logger),
        GaugeRefresher(
            gauges: QueueDepthGauges(database: dependencies.database, metrics: dependencies.metrics),
            interval: configuration.gaugeInterval))
    let database = dependencies.database
    app.beforeServerStarts {
        try await Migrator(database: database).requireCurrent()
    }
    return app
}

/// The gateway process: its event loops, the Postgres pool, then the HTTP server, in one service group (SIGTERM
/// drains, and the loops stop last).
func buildGateway(configuration: GatewayConfiguration) async throws -> ServiceGroup {
    var logger = Logger(label: "gateway")
    logger.logLevel = configuration.logLevel
    let loops = EventLoopThreads(count: configuration.eventLoopThreads)
    let database = Database(
        url: configuration.databaseURL, maxConnections: configuration.databasePoolSize, keepsOneOpen: true,
        eventLoopGroup: loops.group, onConnectionsLoop: true, logger: Logger(label: "gateway.postgres"))
    let broadcast = APNsBroadcastClient(
        endpoints: configuration.broadcastEndpoints,
        trustRoots: try BroadcastConfiguration.trustRoots(file: configuration.apnsCAFile), eventLoopGroup: loops.group)
    let replica = configuration.readDatabaseURL.map {
        Database(
            url: $0, maxConnections: max(2, configuration.databasePoolSize / 2), keepsOneOpen: true,
            eventLoopGroup: loops.group, onConnectionsLoop: true, logger: Logger(label: "gateway.postgres.read"))
    }
    let dependencies = GatewayDependencies(
        database: database, masterKey: configuration.masterKey, eventLoopGroup: loops.group, broadcast: broadcast,
        readDatabase: replica)
    let app = buildApplication(configuration: configuration, dependencies: dependencies, logger: logger)
    // Started in this order, stopped in the reverse: the HTTP server drains before the pools close.
    var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
        .init(service: loops), .init(service: database.client),
    ]
    if let replica { services.append(.init(service: replica.client)) }
    services += [.init(service: BroadcastClientService(client: broadcast)), .init(service: app)]
    return ServiceGroup(
        configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            .shuttingDownWithin(.seconds(configuration.shutdownSeconds)))
}

/// The routes by resource, observability first, authentication per group (tests read its `routes`).
func buildRouter(configuration: GatewayConfiguration, dependencies: GatewayDependencies) -> Router<GatewayContext> {
    let router = Router(context: GatewayContext.self)
    router.add(middleware: ObservabilityMiddleware(metrics: dependencies.metrics))
    router.add(middleware: DomainErrorMiddleware())
    router.add(middleware: URLTextMiddleware())

    HealthRoutes(database: dependencies.database, registry: dependencies.registry, token: configuration.metricsToken)
        .register(on: router)

    AdminRoutes(
        apps: dependencies.apps, credentials: dependencies.credentials, database: dependencies.database,
        bodyLimit: configuration.maxBodyBytes
    )
    .register(on: router.group("admin").add(middleware: AdminAuthMiddleware(token: configuration.adminToken)))

    let api = router.group("api")
    if let target = configuration.shedTarget {
        api.add(
            middleware: LoadSheddingMiddleware(
                shedder: LoadShedder(target: target, floor: configuration.shedFloor ?? configuration.databasePoolSize)))
    }
    let server = api.group().add(
        middleware: TenantAuthMiddleware(
            credentials: dependencies.credentials, limiter: dependencies.limiter, serverOnly: true))
    let device = api.group().add(
        middleware: TenantAuthMiddleware(
            credentials: dependencies.credentials, limiter: dependencies.limiter, serverOnly: false))
    let activities = PostgresActivityStore(database: dependencies.database, metrics: dependencies.metrics)
    let channels = PostgresChannelStore(database: dependencies.database)
    let access = ChannelAccess(channels: channels)
    ChannelRoutes(channels: channels, activities: activities, bodyLimit: configuration.maxBodyBytes)
        .register(server: server, device: device)
    ActivityRoutes(
        activities: activities, access: access, bodyLimit: configuration.maxBodyBytes, metrics: dependencies.metrics
    )
    .register(device: device)
    let contracts = PostgresContractStore(database: dependencies.database)
    let door = ContractDoor(contracts: contracts, metrics: dependencies.metrics)
    ContractRoutes(contracts: contracts, credentials: dependencies.credentials).register(server: server)
    PushRoutes(
        pushes: PostgresPushStore(database: dependencies.database),
        reports: PostgresPushStore(database: dependencies.readDatabase), bodyLimit: configuration.maxBodyBytes,
        door: door
    )
    .register(server: server)
    BroadcastChannelRoutes(channels: dependencies.broadcastChannels, bodyLimit: configuration.maxBodyBytes)
        .register(server: server, device: device)
    ScheduleRoutes(
        schedules: PostgresScheduleStore(database: dependencies.database),
        reads: PostgresScheduleStore(database: dependencies.readDatabase), access: access,
        bodyLimit: configuration.maxBodyBytes, door: door
    )
    .register(server: server, device: device)
    OpenAPIRoutes().register(on: router)
    return router
}
