import Foundation
import PostgresDatabase
import PostgresNIO

/// The Citus suite's database: `CITUS_URL`, a database on a Citus coordinator with the `citus` extension created
/// and its worker nodes added (docs/scaling.md says how). Each test empties it (`sql/citus/empty.sql`), migrates it
/// as `gateway migrate` does, then distributes it (`sql/citus/distribute.sql`). The tests share it: serialized.
enum CitusDatabase {
    static let isConfigured = ProcessInfo.processInfo.environment["CITUS_URL"] != nil

    /// The migrated, distributed database.
    static func prepare() async throws -> DatabaseURL {
        guard let raw = ProcessInfo.processInfo.environment["CITUS_URL"] else {
            throw TestSetupError("CITUS_URL is not set")
        }
        let url = try DatabaseURL(raw)
        let nodes = try await AdminConnection.with(url) { connection in
            let rows = try await connection.query(
                "SELECT count(*) FROM pg_dist_node WHERE isactive AND noderole = 'primary'",
                logger: TestEnvironment.quietLogger)
            for try await count in rows.decode(Int64.self) { return count }
            return 0
        }
        guard nodes >= 3 else {
            throw TestSetupError("CITUS_URL: \(nodes) active nodes; the suite wants a coordinator and two workers")
        }
        try await Self.run(url, try Self.file("empty"))
        try await withDatabase(url) { database in
            try await Migrator(database: database).migrate(
                MigrationFiles.load(directory: TestEnvironment.migrationsDirectory))
        }
        try await Self.run(url, "BEGIN;\n\(try Self.file("distribute"))\nCOMMIT;")
        return url
    }

    /// A script's statements one by one on one connection (the extended protocol takes one statement at a time).
    static func run(_ url: DatabaseURL, _ script: String) async throws {
        try await AdminConnection.with(url) { connection in
            for statement in SQLStatementSplitter.split(script) {
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: statement), logger: TestEnvironment.quietLogger)
                for try await _ in rows {}
            }
        }
    }

    static func file(_ name: String) throws -> String {
        try String(contentsOfFile: TestEnvironment.migrationsDirectory + "/citus/\(name).sql", encoding: .utf8)
    }
}
