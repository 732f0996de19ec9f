import APNsBroadcast
import APNsCommon
import APNsTransport
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import LiveActivitiesCore
import PostgresStore
import Synchronization

@testable import Simulator

/// The whole system: the gateway (in process, real port), the APNs simulator (TLS HTTP/2 on port 0), worker
/// processes (the real `worker` binary, so they can be killed), one app whose key the simulator trusts, and a
/// fresh database.
struct EndToEndHarness: Sendable {
    let gateway: GatewayHarness
    let simulator: SimulatorHarness
    let app: TestApp
    let workerEnvironment: [String: String]
    let workers: WorkerProcesses

    static let bundleID = "com.example.game"

    static func run(
        workers count: Int = 2, environment: [String: String] = [:], databaseURL: DatabaseURL? = nil,
        _ body: @Sendable (EndToEndHarness) async throws -> Void
    ) async throws {
        let keyBase64 = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
        let masterKey = try MasterKey(base64: keyBase64)
        let simulator = try await RunningSimulator.start(logger: TestEnvironment.quietLogger)
        let workers = WorkerProcesses()
        defer { workers.killAll() }
        do {
            let broadcastEndpoint = APNsEndpoint(host: "127.0.0.1", port: simulator.broadcastPort)
            let broadcast = APNsBroadcastClient(
                endpoints: .init(manage: broadcastEndpoint, send: broadcastEndpoint), trustRoots: simulator.trustRoots)
            try await GatewayHarness.run(databaseURL: databaseURL, masterKey: masterKey, broadcast: broadcast) {
                gateway in
                let key = P256.Signing.PrivateKey()
                let created = try await gateway.request(
                    .post, "/admin/apps",
                    json: Fixtures.createAppJSON(name: "Game", bundleID: bundleID, pem: key.pemRepresentation),
                    auth: gateway.admin)
                let json = created.json
                let app = TestApp(
                    key: json["app_key"] as! String, appSecret: json["app_secret"] as! String,
                    masterSecret: json["master_secret"] as! String)
                let sim = SimulatorHarness(
                    simulator: simulator,
                    credentials: APNsCredentials(
                        teamID: SimulatorHarness.teamID, keyID: SimulatorHarness.keyID, environment: .development,
                        signingKey: APNsSigningKey(privateKey: key)))
                _ = try await sim.admin(
                    .POST, "/keys",
                    [
                        "team_id": SimulatorHarness.teamID, "key_id": SimulatorHarness.keyID,
                        "public_key": key.publicKey.pemRepresentation, "bundle_ids": [bundleID],
                    ])
                let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("lagw-sim-ca-\(UUID()).pem")
                try simulator.identity.certificatePEM.write(to: caFile, atomically: true, encoding: .utf8)
                defer { try? FileManager.default.removeItem(at: caFile) }
                var env: [String: String] = [
                    "DATABASE_URL": gateway.databaseURL.connectionString, "MASTER_KEY": keyBase64,
                    "APNS_ENDPOINT": "https://127.0.0.1:\(simulator.apnsPort)", "APNS_CA_FILE": caFile.path,
                    "APNS_MANAGE_ENDPOINT": "https://127.0.0.1:\(simulator.broadcastPort)",
                    "APNS_BROADCAST_ENDPOINT": "https://127.0.0.1:\(simulator.broadcastPort)",
                    "WORKER_PORT": "0", "LOG_LEVEL": "warning", "DATABASE_POOL_SIZE": "6", "WORKER_LEASE_SECONDS": "3",
                    "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                ]
                env.merge(environment) { $1 }
                let harness = EndToEndHarness(
                    gateway: gateway, simulator: sim, app: app, workerEnvironment: env, workers: workers)
                for n in 0..<count { try harness.startWorker("worker-\(n)") }
                try await body(harness)
                workers.killAll()
            }
        } catch {
            workers.killAll()
            await simulator.stop()
            throw error
        }
        await simulator.stop()
    }

    @discardableResult
    func startWorker(_ id: String, environment: [String: String] = [:]) throws -> Process {
        var env = self.workerEnvironment
        env["WORKER_ID"] = id
        env.merge(environment) { $1 }
        return try self.workers.start(environment: env)
    }

    // MARK: driving it

    func push(_ json: String, idempotencyKey: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let idempotencyKey { headers[.init("Idempotency-Key")!] = idempotencyKey }
        return try await self.gateway.request(.post, "/api/push", json: json, auth: self.app.server, headers: headers)
    }

    /// POSTs one push and returns its id (fails the test on anything but 202).
    func send(_ json: String) async throws -> String {
        let response = try await self.push(json)
        guard response.status == .accepted, let id = (response.json["push_ids"] as? [String])?.first else {
            throw TestSetupError("push: \(response.status) \(response.text)")
        }
        return id
    }

    /// Waits until the push is done, failed or canceled; returns its report.
    func finished(_ pushID: String, timeout: Duration = .seconds(60)) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let report = try await self.gateway.request(.get, "/api/pushes/\(pushID)", auth: self.app.server)
            if let push = report.json["push"] as? [String: Any], let state = push["state"] as? String,
                ["done", "failed", "canceled"].contains(state)
            {
                return push
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        // What was left: the push's batches and every job, as rows, with the workers' logs. Read within 5 s: the
        // gateway's pool may be what failed.
        let left = try? await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                try await self.gateway.database.scalar(
                    """
                    SELECT coalesce(string_agg(r, chr(10)), '') FROM (
                        SELECT row_to_json(b)::text AS r FROM push_batches b WHERE b.push_id::text = \(pushID)
                        UNION ALL SELECT row_to_json(j)::text FROM jobs j) x
                    """, as: String.self)
            }
            group.addTask {
                try await Task.sleep(for: .seconds(5))
                return "(no answer from the gateway's pool in 5 s)"
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        throw TestSetupError(
            "push \(pushID) did not finish in \(timeout)\n\(left ?? "(state unreadable)")\n\(self.workers.logs())")
    }

    /// Accepted requests per token, as the simulator counted them.
    func accepted(_ token: String) async throws -> Int {
        let stats = try await self.simulator.stats(token: token)
        return ((stats["token"] as? [String: Any])?["accepted"] as? Int) ?? 0
    }

    /// Accepted requests of every token the simulator saw.
    func acceptedByToken() async throws -> [String: Int] {
        (try await self.simulator.admin(.GET, "/stats?tokens=all") as? [String: Any])?["tokens"] as? [String: Int]
            ?? [:]
    }

    /// Every request the simulator saw for the token (accepted or not).
    func requests(_ token: String) async throws -> Int {
        let stats = try await self.simulator.stats(token: token)
        let token = stats["token"] as? [String: Any] ?? [:]
        let rejected = (token["rejected"] as? [String: Int] ?? [:]).values.reduce(0, +)
        return ((token["accepted"] as? Int) ?? 0) + rejected
    }
}

/// Worker processes started by a test; all are killed when it ends.
final class WorkerProcesses: Sendable {
    private let started = Mutex<[(Process, URL)]>([])

    /// The debug `worker`, or `LAGW_WORKER_BINARY` (e.g. a release build, to measure a test's load without a
    /// debug build's overhead).
    static var binary: URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["LAGW_WORKER_BINARY"] { return URL(fileURLWithPath: path) }
        let root = environment["LAGW_REPO_ROOT"] ?? FileManager.default.currentDirectoryPath
        return URL(fileURLWithPath: root).appendingPathComponent(".build/debug/worker")
    }

    func start(environment: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = []
        process.environment = environment
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("lagw-worker-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        self.started.withLock { $0.append((process, log)) }
        return process
    }

    /// The processes still running, oldest first.
    func processes() -> [Process] {
        self.started.withLock { $0.map(\.0).filter(\.isRunning) }
    }

    /// SIGKILL: no drain, no goodbye; its leases expire. Waits at most 10 s for the exit to be seen: a test was seen
    /// hanging after a failure with its workers already gone, and every wait here has a deadline.
    func kill(_ process: Process) {
        Foundation.kill(process.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(10_000) }
    }

    func killAll() {
        let all = self.started.withLock { list in
            defer { list.removeAll() }
            return list
        }
        for (process, log) in all {
            if process.isRunning { self.kill(process) }
            try? FileManager.default.removeItem(at: log)
        }
    }

    /// The workers' logs (for failure messages).
    func logs() -> String {
        self.started.withLock { list in
            list.map { (try? String(contentsOf: $0.1, encoding: .utf8)) ?? "" }.joined(separator: "\n---\n")
        }
    }
}

extension DatabaseURL {
    /// The URL as the worker's `DATABASE_URL` takes it.
    var connectionString: String {
        let password = self.password.map { ":\($0)" } ?? ""
        return "postgres://\(self.username)\(password)@\(self.host):\(self.port)/\(self.database)?sslmode=disable"
    }
}
