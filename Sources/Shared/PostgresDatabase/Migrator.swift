import Crypto
import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// Applies migrations, each in its own transaction, then the views of `sql/views/`, under an advisory lock so
/// concurrent runs are safe.
public struct Migrator: Sendable {
    static let lockID: Int64 = 0x4C41_4757  // "LAGW"
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Applies what has not run yet, then (re)applies every view; returns the versions applied (empty when already
    /// current).
    @discardableResult
    public func migrate(_ files: MigrationFiles) async throws -> [Int] {
        let applied = try await self.apply(files.migrations)
        try await self.applyViews(files.views, newest: files.last?.version ?? 0)
        return applied
    }

    /// Migrations without views.
    @discardableResult
    public func migrate(_ migrations: [Migration]) async throws -> [Int] {
        try await self.migrate(MigrationFiles(migrations: migrations))
    }

    private func apply(_ migrations: [Migration]) async throws -> [Int] {
        try await self.database.transaction { connection in
            try await connection.query(try MigratorStatements.Lock.query(Self.lockID), logger: self.database.logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    checksum text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                logger: self.database.logger
            )
        }
        var applied: [Int] = []
        for migration in migrations {
            let didApply = try await self.database.transaction { connection -> Bool in
                try await connection.query(try MigratorStatements.Lock.query(Self.lockID), logger: self.database.logger)
                let rows = try await connection.query(
                    try MigratorStatements.Checksum.query(migration.version), logger: self.database.logger)
                for try await checksum in rows.decode(String.self) {
                    guard checksum == migration.checksum else {
                        throw MigrationError(
                            description: "migration \(migration.version)_\(migration.name) changed after it was applied"
                        )
                    }
                    return false
                }
                try await Self.liftStatementTimeout(on: connection, logger: self.database.logger)
                for statement in SQLStatementSplitter.split(migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.database.logger)
                }
                try await connection.query(
                    try MigratorStatements.Record.query(migration.version, migration.name, migration.checksum),
                    logger: self.database.logger)
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        return applied
    }

    /// The sessions' statement timeout does not apply to the rest of the transaction (`LiftStatementTimeout`).
    private static func liftStatementTimeout(on connection: DatabaseConnection, logger: Logger) async throws {
        for try await _ in try await connection.query(
            try MigratorStatements.LiftStatementTimeout.query(), logger: logger)
        {}
    }

    /// Replaces each view with its file's definition, in one transaction, when the database is at `newest`. A
    /// database at a newer version has a newer build's views: an older build's `migrate` leaves them alone.
    private func applyViews(_ views: [ViewDefinition], newest: Int) async throws {
        guard !views.isEmpty else { return }
        let logger = self.database.logger
        try await self.database.transaction { connection in
            try await connection.query(try MigratorStatements.Lock.query(Self.lockID), logger: logger)
            let rows = try await connection.query(try MigratorStatements.CurrentVersion.query(), logger: logger)
            var version = 0
            for try await current in rows.decode(Int.self) { version = current }
            guard version == newest else { return }
            try await Self.liftStatementTimeout(on: connection, logger: logger)
            for view in views {
                do {
                    try await connection.query(PostgresQuery(unsafeSQL: view.sql), logger: logger)
                } catch let error as PSQLError {
                    // 42P16, 42804: a column renamed, removed or retyped, which CREATE OR REPLACE refuses.
                    let refusedChange = ["42P16", "42804"].contains(error.sqlState)
                    throw MigrationError(
                        description: "sql/views/\(view.name).sql: "
                            + (error.serverInfo?[.message] ?? String(reflecting: error))
                            + (refusedChange
                                ? " (a view's columns may only be appended: a migration must drop the view first)" : "")
                    )
                }
            }
        }
    }

    /// The highest applied version, 0 for an empty database.
    public func currentVersion() async throws -> Int {
        do {
            let rows = try await self.database.client.query(
                try MigratorStatements.CurrentVersion.query(), logger: self.database.logger)
            for try await version in rows.decode(Int.self) { return version }
            return 0
        } catch  where error.isUndefinedTable {
            return 0
        }
    }

    /// Throws unless the database is at exactly `expected` (default `Schema.version`). The default is resolved here,
    /// not in the caller: a default argument expression is compiled into each client module, and an incremental
    /// build that does not recompile a client would keep the old version number.
    public func requireCurrent(expected: Int? = nil) async throws {
        let expected = expected ?? Schema.version
        let version = try await self.currentVersion()
        guard version == expected else {
            throw MigrationError(
                description: version < expected
                    ? "database schema is at version \(version) but this build needs \(expected): run `gateway migrate`"
                    : "database schema is at version \(version), newer than this build knows (\(expected)): deploy a newer build"
            )
        }
    }
}
