import Foundation
import PostgresStore

/// A primary and a streaming standby of it, each a PostgreSQL server of the test's own (`scripts/pg.sh start` and
/// `standby`: `pg_basebackup` and physical streaming replication), durable as production runs them. With
/// `synchronous`, the primary's commits wait for the standby (`synchronous_standby_names = '*'`): PostgreSQL's
/// documentation (27.2.8, Synchronous Replication) says "each commit of a write transaction will wait until
/// confirmation is received that the commit has been written to the write-ahead log on disk of both the primary and
/// standby server".
struct StreamingPair: Sendable {
    let primary: PrivatePostgres
    let standby: PrivatePostgres

    /// A URL listing `servers` in that order, with libpq's `target_session_attrs`.
    func url(_ servers: [PrivatePostgres], target: String) throws -> DatabaseURL {
        let hosts = servers.map { "127.0.0.1:\($0.port)" }.joined(separator: ",")
        return try DatabaseURL("postgres://postgres@\(hosts)/postgres?target_session_attrs=\(target)")
    }

    /// Starts both; `body` runs with them, and both are stopped and removed afterwards.
    static func run(synchronous: Bool, _ body: @Sendable (StreamingPair) async throws -> Void) async throws {
        let base = "/tmp/lagw-test-pair-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: base)
        let pair = StreamingPair(
            primary: PrivatePostgres(directory: base + "/primary", port: try Self.freePort()),
            standby: PrivatePostgres(directory: base + "/standby", port: try Self.freePort()))
        defer {
            _ = try? PrivatePostgres.script("pg.sh", "stop", pair.standby.directory)
            _ = try? PrivatePostgres.script("pg.sh", "stop", pair.primary.directory)
            try? FileManager.default.removeItem(atPath: base)
        }
        // Durable when the test is about what a commit promises; else as the suite's own server runs.
        let durability = synchronous ? [] : ["--ephemeral"]
        try PrivatePostgres.script(["pg.sh", "start", pair.primary.directory, "\(pair.primary.port)"] + durability)
        try PrivatePostgres.script(
            ["pg.sh", "standby", pair.standby.directory, "\(pair.standby.port)", "\(pair.primary.port)"] + durability)
        if synchronous {
            try await AdminConnection.run(try pair.primary.url, "ALTER SYSTEM SET synchronous_standby_names = '*'")
            try await AdminConnection.run(try pair.primary.url, "SELECT pg_reload_conf()")
        }
        // Streaming (and, when asked, synchronous) before the test begins.
        let wanted = synchronous ? "sync" : "async"
        let deadline = ContinuousClock.now + .seconds(30)
        while try await Self.replicationState(pair) != "streaming \(wanted)" {
            guard ContinuousClock.now < deadline else {
                throw TestSetupError("the standby is not streaming (\(wanted)) after 30 s")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await body(pair)
    }

    /// Waits until the standby has replayed everything the primary has written so far (a migration's DDL among it):
    /// a test then reads there what it wrote before, and the lag it measures is that of its own writes.
    func standbyCaughtUp(within deadline: Duration = .seconds(60)) async throws {
        let lsn = try await AdminConnection.with(try self.primary.url) { connection in
            for try await lsn in try await connection.query(
                "SELECT pg_current_wal_lsn()::text", logger: TestEnvironment.quietLogger
            ).decode(String.self) {
                return lsn
            }
            throw TestSetupError("no WAL position on the primary")
        }
        let start = ContinuousClock.now
        while ContinuousClock.now - start < deadline {
            let replayed = try await AdminConnection.with(try self.standby.url) { connection in
                for try await done in try await connection.query(
                    "SELECT pg_last_wal_replay_lsn() >= \(lsn)::pg_lsn", logger: TestEnvironment.quietLogger
                ).decode(Bool.self) {
                    return done
                }
                return false
            }
            if replayed { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestSetupError("the standby did not replay up to \(lsn) within \(deadline)")
    }

    /// The primary's view of its standby: `state sync_state`.
    static func replicationState(_ pair: StreamingPair) async throws -> String? {
        try await AdminConnection.with(try pair.primary.url) { connection in
            for try await (state, sync) in try await connection.query(
                "SELECT state, sync_state FROM pg_stat_replication", logger: TestEnvironment.quietLogger
            ).decode((String, String).self) {
                return "\(state) \(sync)"
            }
            return nil
        }
    }

    private static func freePort() throws -> Int {
        Int(try PrivatePostgres.script("free-port.sh").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}
