import Foundation
import PostgresStore

/// A PostgreSQL server of a test's own (`scripts/pg.sh`, ephemeral), for faults that must not touch the shared one:
/// stopped, started and restarted while clients use it.
struct PrivatePostgres: Sendable {
    let directory: String
    let port: Int

    var url: DatabaseURL {
        get throws { try DatabaseURL("postgres://postgres@127.0.0.1:\(self.port)/postgres?sslmode=disable") }
    }

    /// Starts a new server; `body` runs with it, and the server is stopped and removed afterwards.
    static func run(_ body: @Sendable (PrivatePostgres) async throws -> Void) async throws {
        let base = "/tmp/lagw-test-pg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: base)
        let port = Int(try Self.script("free-port.sh").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let server = PrivatePostgres(directory: base + "/data", port: port)
        defer {
            _ = try? Self.script("pg.sh", "stop", server.directory)
            try? FileManager.default.removeItem(atPath: base)
        }
        try server.start()
        try await body(server)
    }

    func start() throws { _ = try Self.script("pg.sh", "start", self.directory, "\(self.port)", "--ephemeral") }
    func stop() throws { _ = try Self.script("pg.sh", "stop", self.directory) }
    func restart() throws { _ = try Self.script("pg.sh", "restart", self.directory) }

    /// Runs `scripts/<name>` and answers its output; throws when it fails. Spawned and awaited with posix_spawn and
    /// waitpid: Foundation's `Process` left `pg.sh start` a zombie here, its `waitUntilExit` never returning.
    @discardableResult
    static func script(_ name: String, _ arguments: String...) throws -> String {
        try Self.script([name] + arguments)
    }

    /// The same, the script's name first in `words`.
    @discardableResult
    static func script(_ words: [String]) throws -> String {
        let name = words[0]
        let arguments = Array(words.dropFirst())
        let log = "/tmp/lagw-test-script-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv = ["/bin/bash", TestEnvironment.repoRoot + "/scripts/" + name] + arguments
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw TestSetupError("scripts/\(name): posix_spawn failed (\(spawned))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // Exited normally (no signal) with status 0.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw TestSetupError("scripts/\(name) \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
        }
        return text
    }
}
