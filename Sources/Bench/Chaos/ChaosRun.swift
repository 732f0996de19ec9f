import Foundation

/// One `bench chaos` run: the programs it restarts, and the scenarios' table.
final class ChaosRun {
    static let allScenarios = [
        "sigterm", "sigkill-one", "sigkill-both", "pg-restart", "pg-stop", "term-backends", "apns-stall",
        "apns-goaway", "apns-503", "net-drop", "overload", "primary-lost",
    ]
    static let soloToken = String(repeating: "cd", count: 32)

    let stack: BenchStack
    /// The bench's connection: to the new primary once primary-lost has seen the standby promoted.
    var db: BenchDatabase
    let gateway: GatewayAPI
    let simulator: SimulatorAdmin
    let big: GatewayAPI.CreatedApp
    let small: GatewayAPI.CreatedApp
    let n: Int
    let latency: Int
    let namespace: NetworkNamespace?
    let pgPort: Int
    let simPort: Int
    var workers: [Int: (process: ChildProcess, port: Int)] = [:]
    var notes: [String] = []
    let trickle = Trickle()
    var pushTS = Int(Date().timeIntervalSince1970) - 200_000
    var gatewayProcess: ChildProcess?
    var gatewayPort = 0
    /// The pg_auto_failover formation's directory (scripts/pg-ha.sh) when this run is primary-lost's.
    var formation: String?
    /// The fan-out of the scenario running now.
    var currentPush = ""
    var primaryLost: ChaosPrimaryLost.Fault?
    /// Programs that missed their SIGTERM deadline: `make chaos` fails.
    var failures: [String] = []

    init(
        stack: BenchStack, db: BenchDatabase, gateway: GatewayAPI, simulator: SimulatorAdmin,
        apps: (big: GatewayAPI.CreatedApp, small: GatewayAPI.CreatedApp), n: Int, latency: Int,
        namespace: NetworkNamespace?, pgPort: Int, simPort: Int
    ) {
        self.stack = stack
        self.db = db
        self.gateway = gateway
        self.simulator = simulator
        self.big = apps.big
        self.small = apps.small
        self.n = n
        self.latency = latency
        self.namespace = namespace
        self.pgPort = pgPort
        self.simPort = simPort
    }

    func startWorker(_ n: Int) async throws {
        let port = try await self.stack.repository.freePort()
        let process = try self.stack.start(
            "worker", [],
            [
                "WORKER_ID": "chaos-\(n)", "WORKER_PORT": "\(port)", "DATABASE_POOL_SIZE": "12",
                "WORKER_CONCURRENCY": "16", "APNS_ENDPOINT": "https://127.0.0.1:\(self.simPort)",
            ], log: self.stack.work + "/worker-\(n).log")
        self.workers[n] = (process, port)
    }

    func waitForWorkers() async {
        for worker in self.workers.values {
            await Poll.until(tries: 100, every: .milliseconds(100)) {
                await self.stack.http.answers("http://127.0.0.1:\(worker.port)/metrics")
            }
        }
    }

    static func now() -> Double { Date().timeIntervalSince1970 }
    static func stamp() -> String { String(format: "%.9f", now()) }
    static func since(_ t: Double) -> String { String(format: "%.1f", now() - t) }

    /// A push's state, or "unknown" while PostgreSQL cannot say.
    func state(_ pushID: String) async -> String {
        (try? await self.db.text("SELECT state FROM pushes WHERE id = '\(pushID)'")) ?? "unknown"
    }

    func acceptedTotal() async -> Int { (try? await self.simulator.stats().accepted) ?? 0 }

    /// SCENARIOS, checked: every one named must exist.
    static func scenarios(_ knobs: Knobs) throws -> [String] {
        let scenarios = knobs.string("SCENARIOS", Self.allScenarios.joined(separator: " "))
            .split(separator: " ").map(String.init)
        for scenario in scenarios where !Self.allScenarios.contains(scenario) {
            throw BenchError("no scenario '\(scenario)'")
        }
        return scenarios
    }

    func runScenarios(_ scenarios: [String]) async throws {
        let deadline = try self.stack.knobs.int("DEADLINE", 240)
        let header = [
            Self.pad("scenario", -14), Self.pad("targeted", 8), Self.pad("accepted", 9), Self.pad("twice+", 7),
            Self.pad("max", 5), Self.pad("unfinished", 10), Self.pad("recovery", 9), Self.pad("other p99", 12),
            "(other: ok/refused)",
        ]
        print(header.joined(separator: " "))
        var overload = false
        for scenario in scenarios {
            if scenario == "overload" {
                overload = true
                continue
            }
            if scenario == "net-drop" && self.namespace == nil {
                print("\(scenario): skipped (not root: no network namespace)")
                continue
            }
            try await self.scenario(scenario, deadline: deadline)
            // A network that dropped everything may leave connections half-open: SIGTERM must still end them in time.
            if scenario == "net-drop" { try await self.measureShutdown(after: scenario) }
        }
        if !self.notes.isEmpty { print(self.notes.joined(separator: "\n")) }
        if overload { try await ChaosOverload(chaos: self).run() }
    }

    func scenario(_ scenario: String, deadline: Int) async throws {
        try await self.simulator.configure(
            .init(
                record: false, countTokens: true, latencyMS: self.latency, stall: false, goawayAfterStreams: 0,
                failureRates: [:]))
        try await self.simulator.reset()
        self.trickle.start(self.gateway, auth: self.small.master)
        self.pushTS += 1
        let (status, bigID) = await self.gateway.tryPush(
            .update("match", timestamp: self.pushTS), auth: self.big.master)
        self.currentPush = bigID
        guard status == 202 else {
            print("\(scenario): POST answered \(String(format: "%03d", status))")
            _ = await self.trickle.stop()
            return
        }
        let started = Self.stamp()
        await Poll.until(tries: 1200, every: .milliseconds(50)) { await self.acceptedTotal() >= self.n / 4 }
        let accepted = await self.acceptedTotal()
        self.notes.append(
            "   \(scenario): POST \(bigID) at \(started), fault at \(Self.stamp()) with \(accepted) accepted"
        )
        try await self.fault(scenario)
        let faultEnd = Self.now()
        var recovered: String?
        for _ in 0..<(deadline * 5) {
            let state = await self.state(bigID)
            if state == "done" || state == "failed" {
                recovered = Self.since(faultEnd)
                let batches =
                    (try? await self.db.text(
                        """
                        SELECT string_agg(state || ' ' || n, ', ') FROM (SELECT state, count(*) n FROM push_batches
                        WHERE push_id = '\(bigID)' GROUP BY 1) b
                        """)) ?? ""
                self.notes.append("   \(scenario): push \(state); batches \(batches)")
                break
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        // Whatever was caught by the fault settles (retries, leases): then the counts.
        try await Task.sleep(for: .seconds(1))
        let posts = await self.trickle.stop()
        // Pushes the trickle posted last may still be on their way: unfinished is what is left after a minute.
        let unfinishedSQL = "SELECT count(*) FROM pushes WHERE state IN ('queued', 'sending')"
        await Poll.until(tries: 300, every: .milliseconds(200)) { try await self.db.text(unfinishedSQL) == "0" }
        let unfinished = Int((try? await self.db.text(unfinishedSQL)) ?? "") ?? 0
        let tokens = (try await self.simulator.stats(tokens: true).tokens ?? [:]).filter { $0.key != Self.soloToken }
        let once = tokens.values.filter { $0 >= 1 }.count
        let twice = tokens.values.filter { $0 >= 2 }.count
        let most = tokens.values.max() ?? 0
        let ok = posts.filter { $0.status == 202 }
        let ids = ok.isEmpty ? "NULL" : ok.map { "'\($0.pushID)'" }.joined(separator: ",")
        var p99 =
            (try? await self.db.text(
                """
                SELECT round(1000 * percentile_cont(0.99) WITHIN GROUP (ORDER BY seconds_to_first_request))::bigint
                FROM push_report WHERE push_id IN (\(ids))
                """)) ?? "?"
        if p99.isEmpty { p99 = "?" }
        let recovery = recovered.map { "\($0) s" } ?? "none"
        let row = [
            Self.pad(scenario, -14), Self.pad("\(self.n)", 8), Self.pad("\(once)", 9), Self.pad("\(twice)", 7),
            Self.pad("\(most)", 5), Self.pad("\(unfinished)", 10), Self.pad(recovery, 9), Self.pad(p99, 9) + " ms",
            "(\(ok.count)/\(posts.count - ok.count))",
        ]
        print(row.joined(separator: " "))
    }

    /// printf's %Ns (right-aligned) and %-Ns (left-aligned, width -N).
    static func pad(_ s: String, _ width: Int) -> String {
        let fill = String(repeating: " ", count: max(0, abs(width) - s.count))
        return width < 0 ? s + fill : fill + s
    }
}
