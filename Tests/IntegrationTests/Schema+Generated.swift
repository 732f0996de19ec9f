import Foundation
import PostgresStore
import Testing

/// `sql/schema.sql` is the schema the migrations and views of `sql/` make, and the views are (re)applied from
/// `sql/views/` on every migrate.
@Suite struct GeneratedSchemaTests {
    @Test func schemaFileIsWhatTheMigrationsMake() async throws {
        try await withEmptyDatabase { database in
            try await Migrator(database: database).migrate(
                MigrationFiles.load(directory: TestEnvironment.migrationsDirectory))
            var url = try TestEnvironment.serverURL()
            url.database = try await database.scalar("SELECT current_database()", as: String.self)
            let dumped = FileManager.default.temporaryDirectory.appendingPathComponent("lagw-schema-\(UUID()).sql").path
            defer { try? FileManager.default.removeItem(atPath: dumped) }
            // The same dump `make schema` writes (scripts/schema.sh), of this database.
            let result = try await ChildProcess.run(
                TestEnvironment.repoRoot + "/scripts/schema.sh", ["dump", Self.connectionString(url), dumped],
                deadline: .seconds(120))
            try #require(result.status == 0, "scripts/schema.sh dump failed: \(result.output)")
            let committed = try String(
                contentsOfFile: TestEnvironment.migrationsDirectory + "/schema.sql", encoding: .utf8)
            let made = try String(contentsOfFile: dumped, encoding: .utf8)
            let difference = Self.firstDifference(committed, made)
            #expect(
                difference == nil,
                "sql/schema.sql differs from the schema the migrations make: run `make schema`. \(difference ?? "")")
        }
    }

    @Test func aViewIsReplacedFromItsFileOnEveryMigrate() async throws {
        try await withEmptyDatabase { database in
            let files = try MigrationFiles.load(directory: TestEnvironment.migrationsDirectory)
            try await Migrator(database: database).migrate(files)
            #expect(try await Self.hasMarker(database) == false)

            let applied = try await Migrator(database: database).migrate(try Self.queueDepthWithMarker(files))
            #expect(applied.isEmpty)
            #expect(try await Self.hasMarker(database))
        }
    }

    @Test func aViewWhoseColumnsChangeIsRefused() async throws {
        try await withEmptyDatabase { database in
            let files = try MigrationFiles.load(directory: TestEnvironment.migrationsDirectory)
            try await Migrator(database: database).migrate(files)
            let renamed = try Self.replacing(
                files, view: "queue_depth",
                with: "CREATE OR REPLACE VIEW queue_depth AS SELECT kind AS job_kind, state FROM jobs")
            let error = await #expect(throws: MigrationError.self) {
                try await Migrator(database: database).migrate(renamed)
            }
            #expect(error?.description.contains("sql/views/queue_depth.sql") == true)
            #expect(error?.description.contains("drop the view") == true)
        }
    }

    /// An older build's `migrate` (a rollback, a pod of the previous release) must not put back its older views.
    @Test func aNewerDatabaseKeepsItsViews() async throws {
        try await withEmptyDatabase { database in
            let files = try MigrationFiles.load(directory: TestEnvironment.migrationsDirectory)
            try await Migrator(database: database).migrate(files)
            _ = try await database.client.query(
                "INSERT INTO schema_migrations (version, name, checksum) VALUES (\(files.count + 1), 'newer', '')")
            try await Migrator(database: database).migrate(try Self.queueDepthWithMarker(files))
            #expect(try await Self.hasMarker(database) == false)
        }
    }

    @Test func viewsComeAfterTheViewsTheyRead() throws {
        let names = try MigrationFiles.load(directory: TestEnvironment.migrationsDirectory).views.map(\.name)
        for (view, reads) in [
            ("push_stats_hourly", "push_report"), ("schedule_report", "push_report"), ("start_report", "push_report"),
            ("start_report_hourly", "start_report"),
        ] {
            let at = try #require(names.firstIndex(of: view))
            let readAt = try #require(names.firstIndex(of: reads))
            #expect(readAt < at, "\(view) reads \(reads)")
        }
        let cycle = [
            try ViewDefinition(name: "a", sql: "CREATE OR REPLACE VIEW a AS SELECT * FROM b"),
            try ViewDefinition(name: "b", sql: "CREATE OR REPLACE VIEW b AS SELECT * FROM a"),
        ]
        #expect(throws: MigrationError.self) { try MigrationFiles(migrations: [], views: cycle) }
        #expect(throws: MigrationError.self) {
            try ViewDefinition(name: "a", sql: "DROP VIEW a; CREATE OR REPLACE VIEW a AS SELECT 1")
        }
    }

    static func queueDepthWithMarker(_ files: MigrationFiles) throws -> MigrationFiles {
        let sql = try #require(files.views.first { $0.name == "queue_depth" }?.sql)
        let marked = sql.replacingOccurrences(
            of: "AS next_run_at\n", with: "AS next_run_at,\n       1 AS marker\n")
        try #require(marked != sql)
        return try Self.replacing(files, view: "queue_depth", with: marked)
    }

    static func replacing(_ files: MigrationFiles, view name: String, with sql: String) throws -> MigrationFiles {
        try MigrationFiles(
            migrations: files.migrations,
            views: files.views.map { $0.name == name ? try ViewDefinition(name: name, sql: sql) : $0 })
    }

    static func hasMarker(_ database: Database) async throws -> Bool {
        try await database.scalar(
            """
            SELECT count(*) FROM information_schema.columns
            WHERE table_schema = 'public' AND table_name = 'queue_depth' AND column_name = 'marker'
            """, as: Int64.self) == 1
    }

    static func connectionString(_ url: DatabaseURL) -> String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = url.username
        components.password = url.password
        components.host = url.host
        components.port = url.port
        components.path = "/" + url.database
        return components.string ?? ""
    }

    /// Where two texts first differ, by line, to say what changed.
    static func firstDifference(_ expected: String, _ actual: String) -> String? {
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(expectedLines.count, actualLines.count) {
            let left = index < expectedLines.count ? String(expectedLines[index]) : "(end of file)"
            let right = index < actualLines.count ? String(actualLines[index]) : "(end of file)"
            if left != right {
                return
                    "First difference at line \(index + 1): the file has \"\(left)\", the migrations make \"\(right)\"."
            }
        }
        return nil
    }
}
