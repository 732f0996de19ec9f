import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct MigrationTests {
    @Test func migratesAnEmptyDatabaseThenIsIdempotent() async throws {
        try await withEmptyDatabase { database in
            let migrator = Migrator(database: database)
            let files = try MigrationFiles.load(directory: TestEnvironment.migrationsDirectory)
            #expect(try await migrator.currentVersion() == 0)
            await #expect(throws: MigrationError.self) { try await migrator.requireCurrent() }

            let applied = try await migrator.migrate(files)
            #expect(applied == Array(1...Schema.version))
            #expect(try await migrator.currentVersion() == Schema.version)
            try await migrator.requireCurrent()

            #expect(try await migrator.migrate(files).isEmpty)
            let tables = try await database.scalar(
                """
                SELECT count(*) FROM information_schema.tables
                WHERE table_schema = 'public' AND table_name IN ('apps', 'jobs', 'channels', 'channel_tags', 'schema_migrations')
                """, as: Int64.self)
            #expect(tables == 5)
        }
    }

    @Test func concurrentMigrationsApplyEachFileOnce() async throws {
        try await withEmptyDatabase { database in
            let files = try MigrationFiles.load(directory: TestEnvironment.migrationsDirectory)
            let results = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<3 { group.addTask { try await Migrator(database: database).migrate(files) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.flatMap { $0 }.sorted() == Array(1...Schema.version))
        }
    }

    @Test func aChangedMigrationIsRefused() async throws {
        try await withEmptyDatabase { database in
            var files = try MigrationFiles.load(directory: TestEnvironment.migrationsDirectory)
            try await Migrator(database: database).migrate(files)
            files[0] = Migration(version: 1, name: files[0].name, sql: files[0].sql + "\n-- edited")
            await #expect(throws: MigrationError.self) { try await Migrator(database: database).migrate(files) }
        }
    }
}
