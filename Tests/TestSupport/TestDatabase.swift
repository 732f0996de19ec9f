import Foundation
import Logging
import PostgresDatabase
import PostgresNIO

extension TestEnvironment {
    /// The server `make test` started.
    public static func serverURL() throws -> DatabaseURL {
        guard let raw = ProcessInfo.processInfo.environment["TEST_DATABASE_URL"] else {
            throw TestSetupError(
                "TEST_DATABASE_URL is not set: run the suite with `make test`, which starts a private PostgreSQL")
        }
        return try DatabaseURL(raw)
    }
}

/// A migrated template database, made once per test process; every test gets a fresh copy of it.
actor TemplateDatabase {
    static let shared = TemplateDatabase()
    private var creation: Task<String, any Error>?
    private var counter = 0

    func uniqueName(_ prefix: String) -> String {
        self.counter += 1
        return "\(prefix)_\(getpid())_\(self.counter)"
    }

    /// Concurrent callers share one creation.
    func ready() async throws -> String {
        if let creation { return try await creation.value }
        let creation = Task { try await Self.create() }
        self.creation = creation
        return try await creation.value
    }

    private static func create() async throws -> String {
        let name = "lagw_template_\(getpid())"
        let server = try TestEnvironment.serverURL()
        try await AdminConnection.run(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        try await AdminConnection.run(server, "CREATE DATABASE \(name)")
        var url = server
        url.database = name
        _ = try await withDatabase(url) { database in
            try await Migrator(database: database).migrate(
                MigrationFiles.load(directory: TestEnvironment.migrationsDirectory))
            // A new sql/ file without `Schema.version` raised to it would make every gateway and worker a test starts
            // refuse the schema; hummingbird's live test client then waits for a server that never listens, and the
            // suite hangs instead of failing. Fail here, once, saying why.
            try await Migrator(database: database).requireCurrent()
        }
        return name
    }
}

public enum AdminConnection {
    /// Runs `sql` (simple protocol: several statements, DDL) on a connection of its own to `url`.
    public static func run(_ url: DatabaseURL, _ sql: String) async throws {
        try await Self.with(url) { _ = try await $0.simpleQuery(sql).get() }
    }

    /// Runs `body` with a connection of its own to `url` (not one of a pool the code under test shares), closed after.
    public static func with<T: Sendable>(
        _ url: DatabaseURL, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: url.host, port: url.port, username: url.username, password: url.password,
                database: url.database, tls: .disable),
            id: 1, logger: TestEnvironment.quietLogger)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

/// Runs `body` with a `Database` whose pool runs for exactly that long.
public func withDatabase<T: Sendable>(
    _ url: DatabaseURL, maxConnections: Int = 20, onConnectionsLoop: Bool = false,
    _ body: @Sendable (Database) async throws -> T
) async throws -> T {
    let database = Database(
        url: url, maxConnections: maxConnections, onConnectionsLoop: onConnectionsLoop,
        logger: TestEnvironment.quietLogger)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await database.client.run() }
        defer { group.cancelAll() }
        return try await body(database)
    }
}

/// A fresh, migrated database of its own for one test, dropped afterwards.
public func withTestDatabase<T: Sendable>(
    maxConnections: Int = 20, _ body: @Sendable (Database) async throws -> T
) async throws -> T {
    try await withTestDatabaseURL(maxConnections: maxConnections) { database, _ in try await body(database) }
}

/// The same, with the database's URL (for processes the test starts).
public func withTestDatabaseURL<T: Sendable>(
    maxConnections: Int = 20, onConnectionsLoop: Bool = false,
    _ body: @Sendable (Database, DatabaseURL) async throws -> T
) async throws -> T {
    let template = try await TemplateDatabase.shared.ready()
    let server = try TestEnvironment.serverURL()
    let name = await TemplateDatabase.shared.uniqueName("lagw_test")
    try await createFromTemplate(server: server, name: name, template: template)
    var url = server
    url.database = name
    do {
        let result = try await withDatabase(url, maxConnections: maxConnections, onConnectionsLoop: onConnectionsLoop) {
            [url] database in
            try await body(database, url)
        }
        try? await AdminConnection.run(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        return result
    } catch {
        try? await AdminConnection.run(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        throw error
    }
}

/// An empty database (no migrations), for the migration tests.
public func withEmptyDatabase<T: Sendable>(_ body: @Sendable (Database) async throws -> T) async throws -> T {
    let server = try TestEnvironment.serverURL()
    let name = await TemplateDatabase.shared.uniqueName("lagw_empty")
    try await AdminConnection.run(server, "CREATE DATABASE \(name)")
    var url = server
    url.database = name
    do {
        let result = try await withDatabase(url, body)
        try? await AdminConnection.run(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        return result
    } catch {
        try? await AdminConnection.run(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        throw error
    }
}

/// CREATE DATABASE ... TEMPLATE fails while the template still has a session; the template's pool may
/// take a moment to close after its migration, so retry briefly.
private func createFromTemplate(server: DatabaseURL, name: String, template: String) async throws {
    var lastError: (any Error)?
    for _ in 0..<250 {
        do {
            try await AdminConnection.run(server, "CREATE DATABASE \(name) TEMPLATE \(template)")
            return
        } catch {
            lastError = error
            try await Task.sleep(for: .milliseconds(20))
        }
    }
    throw lastError!
}
