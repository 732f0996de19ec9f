import Foundation
import PostgresNIO
import PostgresStore
import Testing

/// `DATABASE_STATEMENT_TIMEOUT` bounds every statement of the pool's sessions (30 s unless set; 0 for none);
/// migrations are exempt. The sessions also ask the server for TCP keepalive.
@Suite struct DatabaseStatementTimeoutTests {
    @Test func aStatementLongerThanTheTimeoutIsCanceled() async throws {
        try await withTestDatabaseURL { _, url in
            let resolve = SettingsResolver(environment: [
                "DATABASE_URL": url.connectionString, "DATABASE_STATEMENT_TIMEOUT": "1",
            ])
            let configured = try resolve.databaseURL(CommonSettings.databaseURL, flag: nil)
            #expect(configured.statementTimeout == .seconds(1))
            let database = Database(url: configured, maxConnections: 1, logger: TestEnvironment.quietLogger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await database.client.run() }
                let error = await #expect(throws: PSQLError.self) {
                    for try await _ in try await database.client.query("SELECT pg_sleep(3)", logger: database.logger) {}
                }
                #expect(error?.sqlState == "57014")  // query_canceled: statement timeout
                let setting = try await database.client.query("SHOW statement_timeout", logger: database.logger)
                for try await value in setting.decode(String.self) { #expect(value == "1s") }
                // The session asked the server for TCP keepalive (the test database is reached over TCP).
                for (name, value) in [
                    ("tcp_keepalives_idle", "60"), ("tcp_keepalives_interval", "10"), ("tcp_keepalives_count", "6"),
                    ("client_connection_check_interval", "10s"),
                ] {
                    let shown = try await database.client.query(
                        PostgresQuery(unsafeSQL: "SHOW \(name)"), logger: database.logger)
                    for try await setting in shown.decode(String.self) { #expect(setting == value, "\(name)") }
                }
                group.cancelAll()
            }
            let defaulted = try SettingsResolver(environment: ["DATABASE_URL": url.connectionString])
                .databaseURL(CommonSettings.databaseURL, flag: nil)
            #expect(defaulted.statementTimeout == .seconds(30))
        }
    }
}
