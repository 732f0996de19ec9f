import Crypto
import Foundation
import LiveActivitiesCore
import Synchronization

/// What one bench run starts and must stop: a work directory, a private PostgreSQL, the programs (gateway, workers,
/// simulator) and the environment they share (DATABASE_URL, ADMIN_TOKEN, MASTER_KEY, ... as the scripts exported).
final class BenchStack: Sendable {
    let repository: Repository
    let knobs: Knobs
    let work: String
    let http: BenchHTTP
    let bin: String
    private let children = Mutex<[ChildProcess]>([])
    private let exported = Mutex<[String: String]>([:])

    init(name: String, repository: Repository, knobs: Knobs, bin: String) throws {
        self.repository = repository
        self.knobs = knobs
        self.bin = bin
        self.work = try Repository.workDirectory(name)
        self.http = BenchHTTP.make()
        self.export(
            [
                "ADMIN_TOKEN": Self.randomHex(24), "MASTER_KEY": Data(Self.random(32)).base64EncodedString(),
                "LOG_LEVEL": "warning", "MIGRATIONS_DIR": knobs.string("MIGRATIONS_DIR", repository.root + "/sql"),
            ])
    }

    var pgData: String { self.work + "/pg" }
    /// The private PostgreSQL's durability (`EPHEMERAL`).
    var durability: PostgresDurability { PostgresDurability(self.knobs) }
    var adminToken: String { self.exported.withLock { $0["ADMIN_TOKEN"]! } }

    func export(_ values: [String: String]) {
        self.exported.withLock { $0.merge(values) { $1 } }
    }

    /// This process's environment with what was exported and `extra` on top.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(self.exported.withLock { $0 }) { $1 }
        environment.merge(extra) { $1 }
        return environment
    }

    /// Starts `$bin/<program>`, stopped at the end of the run.
    @discardableResult
    func start(_ program: String, _ arguments: [String] = [], _ extra: [String: String] = [:], log: String? = nil)
        throws -> ChildProcess
    {
        let child = try ChildProcess.start(
            self.bin + "/" + program, arguments, environment: self.environment(extra), log: log)
        self.children.withLock { $0.append(child) }
        return child
    }

    /// `$bin/gateway migrate`; its log is shown only when it fails.
    func migrate() async throws {
        _ = try await ChildProcess.output(self.bin + "/gateway", ["migrate"], environment: self.environment())
    }

    /// SIGTERM to every program, then up to 40 s for each to exit (one that does not is said and killed);
    /// PostgreSQL stopped; the work directory removed unless KEEP is set.
    func stop(prefix: [String] = []) async {
        let children = self.children.withLock { $0 }
        for child in children { child.signal(SIGTERM) }
        let deadline = ContinuousClock.now + .seconds(40)
        for child in children {
            let left = max(0, (deadline - ContinuousClock.now).seconds)
            if !(await child.waitForExit(seconds: left)) {
                FileHandle.standardError.write(
                    Data("!! process \(child.pid) (\(child.name)) still running 40 s after SIGTERM: killed\n".utf8))
                child.signal(SIGKILL)
            }
        }
        try? await self.repository.pg(["stop", self.pgData], prefix: prefix)
        await self.http.shutdown()
        if self.knobs.optional("KEEP") == nil { try? FileManager.default.removeItem(atPath: self.work) }
    }

    static func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }
    static func randomHex(_ count: Int) -> String { random(count).map { String(format: "%02x", $0) }.joined() }

    /// Runs `body`, then stops everything whether it finished or threw.
    func run(prefix: [String] = [], _ body: () async throws -> Void) async throws {
        Interrupt.stopPostgres(repository: self.repository, data: self.pgData, work: self.work, prefix: prefix) {
            for child in self.children.withLock({ $0 }) { child.signal(SIGTERM) }
        }
        do {
            try await body()
        } catch {
            await self.stop(prefix: prefix)
            throw error
        }
        await self.stop(prefix: prefix)
    }
}
