import Crypto
import Foundation

/// One `bench fanout` run: the programs it started, the two apps, and what the other app posted (to time it after).
final class FanoutRun {
    let stack: BenchStack
    let settings: FanoutSettings
    let db: BenchDatabase
    let gateway: GatewayAPI
    let simulator: SimulatorAdmin
    let simulatorProcess: ChildProcess
    let simPort: Int
    let big: GatewayAPI.CreatedApp
    let small: GatewayAPI.CreatedApp
    let liveChannel: String
    /// The other app's one activity: the simulator records its notifications, to time them where APNs sees them.
    static let soloToken = String(repeating: "cd", count: 32)

    var workers: [(process: ChildProcess, port: Int)] = []
    var soloChannels: [String] = []
    /// The other app's timestamps: well in the past (at most 60 s ahead is accepted), rising one a push.
    var ts = Int(Date().timeIntervalSince1970) - 100_000
    var bigID = ""
    var smalls: (ids: [String], ts: [Int]) = ([], [])
    var casts: (ids: [String], ts: [Int]) = ([], [])
    var busyCasts = 0
    /// POST -> 202 as the caller sees it, in seconds: the big push, and each of the other app's single updates
    /// during the fan-out.
    var accepts: (big: Double, singles: [Double]) = (0, [])
    var cpu: (workers: [Double], simulator: Double, postgres: Double) = ([], 0, 0)

    init(
        stack: BenchStack, settings: FanoutSettings, db: BenchDatabase, gateway: GatewayAPI,
        simulator: SimulatorAdmin, simulatorProcess: ChildProcess, simPort: Int,
        apps: (big: GatewayAPI.CreatedApp, small: GatewayAPI.CreatedApp), liveChannel: String
    ) {
        self.stack = stack
        self.settings = settings
        self.db = db
        self.gateway = gateway
        self.simulator = simulator
        self.simulatorProcess = simulatorProcess
        self.simPort = simPort
        self.big = apps.big
        self.small = apps.small
        self.liveChannel = liveChannel
    }

    /// PostgreSQL (pg_stat_statements, production-sized shared buffers), the simulator, the gateway, two apps.
    static func setUp(stack: BenchStack, settings: FanoutSettings) async throws -> FanoutRun {
        let repository = stack.repository
        let gwPort = try await repository.freePort()
        let simPort = try await repository.freePort()
        let simAdmin = try await repository.freePort()
        let simBroadcast = try await repository.freePort()
        let db: BenchDatabase
        if let citus = settings.citusURL {
            db = try await ExternalCitus.prepare(citus, stack: stack)
        } else {
            db = try await Self.privatePostgres(stack: stack, settings: settings)
        }

        let ca = stack.work + "/ca.pem"
        let simulatorProcess = try stack.start(
            "apns-sim",
            [
                "--port", "\(simPort)", "--admin-port", "\(simAdmin)", "--broadcast-port", "\(simBroadcast)",
                "--certificate-out", ca, "--log-level", "error",
            ], log: stack.work + "/apns-sim.log")
        await Poll.until(tries: 50, every: .milliseconds(100)) {
            ((try? FileManager.default.attributesOfItem(atPath: ca)[.size] as? Int) ?? 0) > 0
        }
        stack.export([
            "APNS_CA_FILE": ca, "APNS_MANAGE_ENDPOINT": "https://127.0.0.1:\(simBroadcast)",
            "APNS_BROADCAST_ENDPOINT": "https://127.0.0.1:\(simBroadcast)",
        ])
        try stack.start(
            "gateway", ["serve"], ["GATEWAY_PORT": "\(gwPort)", "DATABASE_POOL_SIZE": "8"],
            log: stack.work + "/gateway.log")
        let gateway = GatewayAPI(http: stack.http, base: "http://127.0.0.1:\(gwPort)", adminToken: stack.adminToken)
        let simulator = SimulatorAdmin(http: stack.http, base: "http://127.0.0.1:\(simAdmin)")
        await Poll.until(tries: 50, every: .milliseconds(200)) {
            guard await stack.http.answers(gateway.base + "/readyz") else { return false }
            return await stack.http.answers(simulator.base + "/stats")
        }
        try await simulator.configure(
            .init(
                record: false, countTokens: false, recordTokens: [Self.soloToken], latencyMS: settings.simLatencyMS,
                maxConcurrentStreams: settings.simMaxStreams))
        print(
            "== \(settings.n) activities, \(settings.workers) workers (WORKER_BULK_NICE \(settings.bulkNice)), other "
                + "app's updates to \(settings.otherActivities) activities; simulator: \(settings.simLatencyMS) ms per "
                + "answer, advertises \(settings.simMaxStreams) streams per connection")
        if settings.citusURL == nil {
            print(stack.durability.header)
            // The server's own values: `PG_OPTS` given to `scripts/pg.sh` (`-c`) overrides the bench's settings.
            let buffers = try await db.text("SHOW shared_buffers")
            let wal = try await db.text("SHOW max_wal_size")
            print("== PostgreSQL shared_buffers \(buffers), max_wal_size \(wal) (PG_SHARED_BUFFERS, PG_MAX_WAL_SIZE)")
        }

        let key = P256.Signing.PrivateKey()
        try await simulator.trust(key)
        let big = try await gateway.createApp("big", key: key)
        let small = try await gateway.createApp("small", key: key)
        // The idle validations go one after another faster than the default 500 server requests per second.
        try await gateway.setPolicies(small, #"{"limits":{"server_requests_per_second":100000}}"#)
        let live = try await gateway.broadcastChannel("live", auth: small.master)
        return FanoutRun(
            stack: stack, settings: settings, db: db, gateway: gateway, simulator: simulator,
            simulatorProcess: simulatorProcess, simPort: simPort, apps: (big, small), liveChannel: live)
    }

    /// The private PostgreSQL: pg_stat_statements, production-sized shared buffers, the WAL's size asked, migrated.
    static func privatePostgres(stack: BenchStack, settings: FanoutSettings) async throws -> BenchDatabase {
        let repository = stack.repository
        let pgPort = try await repository.freePort()
        try await repository.pg(["start", stack.pgData, "\(pgPort)"] + stack.durability.arguments)
        stack.export(["DATABASE_URL": "postgres://postgres@127.0.0.1:\(pgPort)/postgres"])
        // pg_stat_statements (postgresql-contrib) says which statements PostgreSQL's time went to. shared_buffers as
        // a production server would have it (a quarter of memory is the usual advice): the 128 MB default holds a
        // fraction of a million activities and their indexes, and every chunk then copies pages in again.
        let first = BenchDatabase(host: "127.0.0.1", port: pgPort)
        try await first.run(
            "ALTER SYSTEM SET max_connections = 200",
            "ALTER SYSTEM SET shared_buffers = '\(settings.sharedBuffers)'",
            "ALTER SYSTEM SET max_wal_size = '\(settings.maxWALSize)'",
            "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
        await first.close()
        try await repository.pg(["stop", stack.pgData])
        try await repository.pg(["start", stack.pgData, "\(pgPort)"] + stack.durability.arguments)
        let db = BenchDatabase(host: "127.0.0.1", port: pgPort)
        try await db.run("CREATE EXTENSION pg_stat_statements")
        // Planning time beside execution time: statements made unprepared are planned for every chunk.
        try await db.run("ALTER SYSTEM SET pg_stat_statements.track_planning = on", "SELECT pg_reload_conf()")
        try await stack.migrate()
        return db
    }

    /// N channels of app big, each with a tracked 'match' activity (EVENT=start: a push-to-start token instead: every
    /// target is then checked against the duplicate guard, suspect tokens and the start budget, and every accepted
    /// start becomes a pending confirmation), and OTHER_ACTIVITIES 'solo' activities of app small.
    func seed() async throws {
        let n = self.settings.n
        let others = self.settings.otherActivities
        print(
            "== seeding \(n) channels with a tracked activity 'match' (app big), \(others) activities 'solo' (app small)"
        )
        let started = ContinuousClock.now
        // CONTRACTS=1: every device reported contract version 1 (the column exists from migration 29 on).
        let (versionColumn, version) = self.settings.contracts ? (", contract_version", ", 1") : ("", "")
        let seedBig =
            self.settings.startEvent
            ? """
            INSERT INTO push_to_start_tokens (channel_id, app_id, attributes_type, token, environment\(versionColumn))
            SELECT c.id, c.app_id, 'MatchAttributes', md5(c.install_id) || md5(c.install_id), 'development'\(version)
            FROM channels c
            """
            : """
            INSERT INTO live_activities
                (app_id, channel_id, name, attributes_type, system_activity_id, push_token, environment\(versionColumn))
            SELECT c.app_id, c.id, 'match', 'MatchAttributes', c.install_id, md5(c.install_id) || md5(c.install_id),
                   'development'\(version)
            FROM channels c
            """
        try await self.db.run(
            """
            INSERT INTO channels (app_id, install_id)
            SELECT a.id, 'd' || g FROM apps a, generate_series(1, \(n)) g WHERE a.name = 'big'
            """,
            seedBig,
            """
            INSERT INTO channels (app_id, install_id)
            SELECT id, 'solo-' || g FROM apps, generate_series(1, \(others)) g WHERE name = 'small'
            """,
            """
            INSERT INTO live_activities
                (app_id, channel_id, name, attributes_type, system_activity_id, push_token, environment\(versionColumn))
            SELECT c.app_id, c.id, 'solo', 'MatchAttributes', 'solo', '\(Self.soloToken)', 'development'\(version)
            FROM channels c WHERE c.install_id LIKE 'solo-%'
            """,
            "VACUUM ANALYZE")
        // Once more a moment later, as autovacuum would have by then: the first, right after the inserts, leaves the
        // pages not all-visible, and the chunk selects then read every row from the heap.
        if self.settings.contracts {
            for app in [self.big, self.small] {
                try await self.gateway.putContract(
                    "MatchAttributes", version: 1, document: FanoutSettings.contract, auth: app.master)
            }
            print("   contracts: MatchAttributes v1 for both apps; every device reports version 1")
        }
        try await Task.sleep(for: .seconds(2))
        try await self.db.run("VACUUM live_activities")
        print(
            try await self.db.text(
                """
                SELECT '   all-visible pages of live_activities: ' || relallvisible || ' of ' || relpages FROM pg_class
                WHERE relname = 'live_activities'
                """))
        print(String(format: "   seeded in %.1f s", (ContinuousClock.now - started).seconds))
        self.soloChannels = try await self.db.rows(
            "SELECT id FROM channels WHERE install_id LIKE 'solo-%' ORDER BY id")
    }

    /// WORKERS workers, each with WORKER_POOL_SIZE connections for its batches; CPU counted from when all answer.
    func startWorkers() async throws {
        for n in 1...self.settings.workers {
            let port = try await self.stack.repository.freePort()
            let process = try self.stack.start(
                "worker", [],
                [
                    "WORKER_ID": "bench-\(n)", "WORKER_PORT": "\(port)",
                    "DATABASE_POOL_SIZE": self.settings.workerPoolSize,
                    "WORKER_CONCURRENCY": self.settings.workerConcurrency,
                    "APNS_ENDPOINT": "https://127.0.0.1:\(self.simPort)", "APNS_CA_FILE": self.stack.work + "/ca.pem",
                ], log: self.stack.work + "/worker-\(n).log")
            self.workers.append((process, port))
        }
        for worker in self.workers {
            await Poll.until(tries: 100, every: .milliseconds(100)) {
                await self.stack.http.answers("http://127.0.0.1:\(worker.port)/metrics")
            }
        }
        self.cpu = (
            self.workers.map { ProcessCPU.seconds($0.process.pid) }, ProcessCPU.seconds(self.simulatorProcess.pid),
            ProcessCPU.postgres(dataDirectory: self.stack.pgData)
        )
    }
}
