import ArgumentParser
import Crypto
import Foundation

/// `bench chaos` (`make chaos`): faults in the middle of a fan-out. Release builds; one PostgreSQL, a gateway, two
/// workers and the APNs simulator on this machine. Each scenario POSTs one update to N tracked activities while
/// another app sends a single update every 100 ms, injects its fault once a quarter of the tokens were accepted, and
/// prints: tokens targeted, accepted at least once, accepted twice or more (and the most times one token was),
/// pushes left unfinished, seconds from the fault's end to the fan-out done, and the other app's POST -> APNs request
/// p99. The simulator's per-token counts are the ground truth. primary-lost runs last, on a stack of its own whose
/// PostgreSQL is a pg_auto_failover formation (ChaosPrimaryLost).
struct ChaosBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chaos",
        abstract: "Faults in the middle of a fan-out (make chaos).",
        discussion: """
            Environment: SCENARIOS (default all: \(ChaosRun.allScenarios.joined(separator: " ")); overload is not a \
            fan-out but the gateway offered three times what it serves), N (200000), SIM_LATENCY_MS (30), \
            WORKER_LEASE_SECONDS (10: a killed worker's batches resume after it), SHED_TARGET_MS (the gateway's \
            GATEWAY_SHED_TARGET_MS, 20 here; 0: no shedding), DEADLINE (240 s for a push to end after its fault), \
            OVERLOAD_SECONDS (60), KEEP (keep the work directory), BIN_DIR. net-drop needs root (network \
            namespaces): PostgreSQL then runs in a namespace of its own, reached over a veth pair, and the fault is a \
            tbf qdisc that passes nothing on both ends for 10 s (this kernel has no netem); after it the gateway and \
            the workers get SIGTERM, and one still running past its deadline (GATEWAY_SHUTDOWN_SECONDS + 5, \
            WORKER_SHUTDOWN_SECONDS + 5) is killed and fails the run. primary-lost needs pg_auto_failover \
            (scripts/deps.sh --ha): its stack runs on scripts/pg-ha.sh's primary and synchronous standby.
            """
    )

    func run() async throws {
        let knobs = Knobs()
        let repository = try Repository.find()
        let bin = try await repository.binaries(knobs, products: ["gateway", "worker", "apns-sim"])
        let n = try knobs.int("N", 200_000)
        let latency = try knobs.int("SIM_LATENCY_MS", 30)
        let scenarios = try ChaosRun.scenarios(knobs)
        var failures: [String] = []
        let single = scenarios.filter { $0 != "primary-lost" }
        if !single.isEmpty {
            failures += try await Self.runSingle(
                single, repository: repository, knobs: knobs, bin: bin, n: n, latency: latency)
        }
        if scenarios.contains("primary-lost") {
            failures += try await ChaosPrimaryLost.run(
                repository: repository, knobs: knobs, bin: bin, n: n, latency: latency)
        }
        if !failures.isEmpty { throw BenchError("FAILED: " + failures.joined(separator: "; ")) }
    }

    /// The scenarios on one PostgreSQL; returns the programs that missed a SIGTERM deadline.
    static func runSingle(
        _ scenarios: [String], repository: Repository, knobs: Knobs, bin: String, n: Int, latency: Int
    ) async throws -> [String] {
        let stack = try BenchStack(name: "chaos", repository: repository, knobs: knobs, bin: bin)
        var failures: [String] = []
        stack.export([
            "WORKER_LEASE_SECONDS": knobs.string("WORKER_LEASE_SECONDS", "10"),
            "MIGRATIONS_DIR": repository.root + "/sql",
        ])
        // PostgreSQL in a network namespace of its own when this user may make one.
        let namespace = await NetworkNamespace.make()
        let prefix = namespace?.prefix ?? []
        let pgHost = namespace?.address ?? "127.0.0.1"
        do {
            try await stack.run(prefix: prefix) {
                let pgPort = try await repository.freePort()
                let listen = "127.0.0.1,\(pgHost)"
                try await repository.pg(
                    ["start", stack.pgData, "\(pgPort)"] + stack.durability.arguments, listen: listen, prefix: prefix)
                let hba = try FileHandle(forWritingTo: URL(fileURLWithPath: stack.pgData + "/pg_hba.conf"))
                hba.seekToEndOfFile()
                hba.write(Data("host all all 10.231.0.0/30 trust\n".utf8))
                try hba.close()
                try await repository.pg(["reload", stack.pgData], prefix: prefix)
                stack.export(["DATABASE_URL": "postgres://postgres@\(pgHost):\(pgPort)/postgres"])
                let first = BenchDatabase(host: pgHost, port: pgPort)
                try await first.run("ALTER SYSTEM SET shared_buffers = '1GB'")
                await first.close()
                try await repository.pg(["restart", stack.pgData], prefix: prefix)
                try await stack.migrate()
                let db = BenchDatabase(host: pgHost, port: pgPort)
                let run = try await Self.setUp(
                    stack: stack, db: db, n: n, latency: latency, namespace: namespace, pgPort: pgPort)
                do {
                    try await run.runScenarios(scenarios)
                } catch {
                    await db.close()
                    throw error
                }
                failures = run.failures
                await db.close()
            }
        } catch {
            await namespace?.remove()
            throw error
        }
        await namespace?.remove()
        return failures
    }

    /// The simulator, the gateway, two apps, N activities of app big and one of app small, two workers.
    static func setUp(
        stack: BenchStack, db: BenchDatabase, n: Int, latency: Int, namespace: NetworkNamespace?, pgPort: Int,
        formation: String? = nil
    ) async throws -> ChaosRun {
        let repository = stack.repository
        let simPort = try await repository.freePort()
        let simAdmin = try await repository.freePort()
        let gwPort = try await repository.freePort()
        let ca = stack.work + "/ca.pem"
        try stack.start(
            "apns-sim",
            ["--port", "\(simPort)", "--admin-port", "\(simAdmin)", "--certificate-out", ca, "--log-level", "error"],
            log: stack.work + "/apns-sim.log")
        await Poll.until(tries: 50, every: .milliseconds(100)) {
            ((try? FileManager.default.attributesOfItem(atPath: ca)[.size] as? Int) ?? 0) > 0
        }
        stack.export(["APNS_CA_FILE": ca])
        let gatewayProcess = try Self.startGateway(stack, port: gwPort)
        let gateway = GatewayAPI(http: stack.http, base: "http://127.0.0.1:\(gwPort)", adminToken: stack.adminToken)
        let simulator = SimulatorAdmin(http: stack.http, base: "http://127.0.0.1:\(simAdmin)")
        await Poll.until(tries: 100, every: .milliseconds(200)) { await stack.http.answers(gateway.base + "/readyz") }
        let key = P256.Signing.PrivateKey()
        try await simulator.trust(key)
        let big = try await gateway.createApp("big", key: key)
        let small = try await gateway.createApp("small", key: key)
        try await db.run(
            """
            INSERT INTO channels (app_id, install_id) SELECT a.id, 'd' || g FROM apps a, generate_series(1, \(n)) g
            WHERE a.name = 'big'
            """,
            """
            INSERT INTO live_activities (app_id, channel_id, name, attributes_type, system_activity_id, push_token, environment)
            SELECT c.app_id, c.id, 'match', 'MatchAttributes', c.install_id, md5(c.install_id) || md5(c.install_id), 'development'
            FROM channels c
            """,
            "INSERT INTO channels (app_id, install_id) SELECT id, 'solo' FROM apps WHERE name = 'small'",
            """
            INSERT INTO live_activities (app_id, channel_id, name, attributes_type, system_activity_id, push_token, environment)
            SELECT c.app_id, c.id, 'solo', 'MatchAttributes', 'solo', '\(ChaosRun.soloToken)', 'development' FROM channels c
            WHERE c.install_id = 'solo'
            """,
            "VACUUM ANALYZE")
        let run = ChaosRun(
            stack: stack, db: db, gateway: gateway, simulator: simulator, apps: (big, small), n: n,
            latency: latency, namespace: namespace, pgPort: pgPort, simPort: simPort)
        run.gatewayProcess = gatewayProcess
        run.gatewayPort = gwPort
        run.formation = formation
        try await run.startWorker(1)
        try await run.startWorker(2)
        await run.waitForWorkers()
        print(
            "== chaos: \(n) activities, 2 workers (lease \(stack.knobs.string("WORKER_LEASE_SECONDS", "10")) s), "
                + "simulator \(latency) ms per answer; PostgreSQL "
                + (formation != nil
                    ? "a pg_auto_failover primary and synchronous standby on loopback"
                    : namespace != nil ? "in a network namespace" : "on loopback (not root: net-drop skipped)"))
        if formation == nil { print(stack.durability.header) }
        return run
    }

    /// The gateway on `port` (again on the same one after a restart: the bench's calls go there).
    static func startGateway(_ stack: BenchStack, port: Int) throws -> ChildProcess {
        try stack.start(
            "gateway", ["serve"],
            [
                "GATEWAY_PORT": "\(port)", "DATABASE_POOL_SIZE": "8",
                "GATEWAY_SHED_TARGET_MS": stack.knobs.string("SHED_TARGET_MS", "20"),
            ], log: stack.work + "/gateway.log")
    }
}
