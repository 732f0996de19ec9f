import Foundation
import PostgresNIO
import PostgresStore
import Testing

/// `Database.transaction`: committed when its body returns, rolled back when it throws, every error as it was thrown.
@Suite struct DatabaseTransactionTests {
    struct Refused: Error {}

    @Test func aBodysErrorComesOutAsThrownAndItsWritesAreRolledBack() async throws {
        try await withDatabase(try TestEnvironment.serverURL(), maxConnections: 1) { database in
            let table = "lagw_rollback_\(UUID().uuidString.prefix(8).lowercased())"
            await #expect(throws: Refused.self) {
                try await database.transaction { connection in
                    try await connection.query("CREATE TABLE \(unescaped: table) (id int)", logger: database.logger)
                    throw Refused()
                }
            }
            let exists = try await database.client.query("SELECT to_regclass(\(table)) IS NOT NULL")
                .collect()[0].decode(Bool.self)
            #expect(!exists, "the body's table was committed")
            // The one pooled connection is outside the body's transaction (whose CREATE TABLE took a transaction id).
            let fresh = try await database.client.query("SELECT txid_current_if_assigned() IS NULL").collect()[0]
                .decode(Bool.self)
            #expect(fresh, "the connection went back to the pool inside the transaction")
        }
    }

    @Test func aCommitThatFailsThrowsItsError() async throws {
        try await withDatabase(try TestEnvironment.serverURL(), maxConnections: 1) { database in
            var returned = false
            do {
                try await database.transaction { connection in
                    try await connection.query(
                        """
                        CREATE TEMP TABLE once (id int UNIQUE DEFERRABLE INITIALLY DEFERRED) ON COMMIT DROP;
                        """, logger: database.logger)
                    try await connection.query("INSERT INTO once VALUES (1), (1)", logger: database.logger)
                }
                returned = true
            } catch {
                #expect(error.isUniqueViolation, "\(error)")
            }
            #expect(!returned, "a failed commit returned")
        }
    }
}
