import ArgumentParser
import Foundation

/// `bench retention` (`make bench-retention`): retention of a week of delivery history, by deleting rows (as
/// `maintenance.retention` deletes what is younger than a week's partition: push operations 1,000 a statement, their
/// pushes, batches, failures and counts by cascade, their start attempts first) and by dropping the week's
/// partitions (`history_partitions_drop`, sql/0022). The same seeded week in two copies of one database; prints each
/// way's time and the WAL it wrote.
struct RetentionBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "A week of history deleted row by row or dropped by partition (make bench-retention).",
        discussion: """
            Environment: PUSHES (50) start pushes, each with ATTEMPTS (20000) start attempts and FAILURES (200) \
            failure rows, five weeks old; BIN_DIR (a gateway built elsewhere, for its migrations); MIGRATIONS_DIR.
            """
    )

    func run() async throws {
        let knobs = Knobs()
        let pushes = try knobs.int("PUSHES", 50)
        let attempts = try knobs.int("ATTEMPTS", 20000)
        let failures = try knobs.int("FAILURES", 200)
        let repository = try Repository.find()
        let bin = try await repository.binaries(knobs, products: ["gateway"])
        let stack = try BenchStack(name: "bench-retention", repository: repository, knobs: knobs, bin: bin)
        try await stack.run {
            let port = try await repository.freePort()
            // Durable settings (no --ephemeral): the WAL written is what a production server writes.
            try await repository.pg(["start", stack.pgData, "\(port)"])
            stack.export(["DATABASE_URL": "postgres://postgres@127.0.0.1:\(port)/postgres"])
            try await stack.migrate()
            let seeding = BenchDatabase(host: "127.0.0.1", port: port)
            do {
                try await Self.seed(seeding, pushes: pushes, attempts: attempts, failures: failures)
            } catch {
                await seeding.close()
                throw error
            }
            await seeding.close()
            // The copy is made from template1's side: no session may be open on the database copied.
            let template = BenchDatabase(host: "127.0.0.1", port: port, database: "template1")
            try await template.run("CREATE DATABASE dropping TEMPLATE postgres")
            await template.close()
            let postgres = BenchDatabase(host: "127.0.0.1", port: port)
            let dropping = BenchDatabase(host: "127.0.0.1", port: port, database: "dropping")
            do {
                let rows = try await postgres.text(
                    """
                    SELECT (SELECT count(*) FROM pushes) + (SELECT count(*) FROM push_batches)
                        + (SELECT count(*) FROM push_failures) + (SELECT count(*) FROM push_failure_counts)
                        + (SELECT count(*) FROM start_attempts)
                    """)
                print(
                    "retention: one week of history, \(pushes) start pushes, \(rows) rows (\(attempts) attempts and "
                        + "\(failures) failures a push)")
                try await Self.measure(postgres, "deleting rows (1,000 operations a statement)") {
                    try await Self.deleteRows(postgres)
                }
                try await Self.measure(postgres, "  then vacuum of the deleted rows") {
                    try await postgres.run("VACUUM")
                }
                try await Self.measure(dropping, "dropping the week's partitions") {
                    try await dropping.run(
                        "SELECT history_partitions_drop(now() - interval '30 days')",
                        "DELETE FROM push_operations WHERE created_at < now() - interval '30 days'")
                }
            } catch {
                await postgres.close()
                await dropping.close()
                throw error
            }
            await postgres.close()
            await dropping.close()
        }
    }

    static func seed(_ db: BenchDatabase, pushes: Int, attempts: Int, failures: Int) async throws {
        try await db.run(
            """
            INSERT INTO apps (app_key, name, bundle_id, app_secret_hash, master_secret_hash, apns_team_id, apns_key_id,
                              apns_environment, apns_private_key_sealed)
            VALUES ('benchretentionapp00001', 'bench', 'com.example.bench', '\\x00', '\\x00', 'TEAM', 'KEY', 'development', '\\x00')
            """,
            """
            INSERT INTO push_operations (app_id, response, created_at)
            SELECT 1, '{}', now() - interval '35 days' FROM generate_series(1, \(pushes))
            """,
            """
            INSERT INTO pushes (app_id, operation_id, event, activity_name, audience, request, apns_payload, apns_timestamp,
                                apns_priority, state, targeted, created_at, finished_at)
            SELECT 1, id, 'start', 'match', '{"tag":"fans"}', '{}', '\\x7b7d', 1, 10, 'done', \(attempts), created_at, created_at
            FROM push_operations
            """,
            """
            INSERT INTO push_batches (push_id, seq, targets, state, push_created_at, app_id)
            SELECT p.id, s, 10000, 'done', p.created_at, p.app_id
            FROM pushes p, generate_series(0, (\(attempts) - 1) / 10000) s
            """,
            """
            INSERT INTO push_failure_counts (push_id, reason, count, push_created_at, app_id)
            SELECT id, 'Unregistered', \(failures), created_at, app_id FROM pushes
            """,
            """
            INSERT INTO push_failures (push_id, app_id, channel_id, token, status, reason, push_created_at)
            SELECT p.id, 1, gen_random_uuid(), md5(p.id::text || g), 410, 'Unregistered', p.created_at
            FROM pushes p, generate_series(1, \(failures)) g
            """,
            """
            INSERT INTO start_attempts (push_id, app_id, channel_id, name, attributes_type, token, window_until, push_created_at)
            SELECT p.id, 1, gen_random_uuid(), 'match', 'MatchAttributes', md5(p.id::text || g), p.created_at + interval '5 minutes',
                   p.created_at
            FROM pushes p, generate_series(1, \(attempts)) g
            """,
            "CHECKPOINT", "VACUUM ANALYZE")
    }

    /// Runs `action` between two checkpoints' WAL positions; prints its time, the WAL written and the pushes left.
    static func measure(_ db: BenchDatabase, _ label: String, _ action: () async throws -> Void) async throws {
        try await db.run("CHECKPOINT")
        let lsn0 = try await db.text("SELECT pg_current_wal_lsn()::text")
        let started = ContinuousClock.now
        try await action()
        let elapsed = ContinuousClock.now - started
        let lsn1 = try await db.text("SELECT pg_current_wal_lsn()::text")
        let wal = try await db.text("SELECT pg_size_pretty(pg_wal_lsn_diff('\(lsn1)', '\(lsn0)'))")
        let left = try await db.text("SELECT count(*) FROM pushes")
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "   " + label.padding(toLength: max(40, label.count), withPad: " ", startingAt: 0)
                + String(format: " %6.2f s", seconds) + ", WAL \(wal), pushes left \(left)")
    }

    /// As `maintenance.retention` deletes: 1,000 operations a statement, their start attempts first.
    static func deleteRows(_ db: BenchDatabase) async throws {
        while true {
            let n = try await db.text(
                """
                WITH old AS (SELECT id FROM push_operations WHERE created_at < now() - interval '30 days' LIMIT 1000),
                attempts AS (DELETE FROM start_attempts s USING pushes p
                             WHERE p.operation_id IN (SELECT id FROM old) AND s.push_id = p.id),
                done AS (DELETE FROM push_operations WHERE id IN (SELECT id FROM old) RETURNING 1)
                SELECT count(*) FROM done
                """)
            if (Int(n) ?? 0) < 1000 { break }
        }
    }
}
