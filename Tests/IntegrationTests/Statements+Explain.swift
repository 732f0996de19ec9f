import Foundation
import Logging
import PostgresNIO
import PostgresStore
import Testing

/// Every statement in `StatementCatalog.all` parses and plans against the migrated schema: PostgreSQL prepares it
/// (inferring its parameters' types) and `EXPLAIN`s it with every parameter NULL, so a misspelt column or a statement
/// that no longer fits the schema fails here, by name, without the code that runs it.
@Suite struct StatementExplainTests {
    @Test func statementNamesAreUnique() {
        var seen: [String: Int] = [:]
        for statement in StatementCatalog.all { seen[statement.name, default: 0] += 1 }
        let repeated = seen.filter { $0.value > 1 }.keys.sorted()
        #expect(repeated.isEmpty, "statement names used more than once: \(repeated)")
    }

    @Test func everyStatementExplainsAgainstTheMigratedSchema() async throws {
        #expect(!StatementCatalog.all.isEmpty)
        try await withTestDatabase(maxConnections: 1) { database in
            try await database.client.withConnection { connection in
                var failures: [String] = []
                for statement in StatementCatalog.all {
                    if let failure = try await Self.explainFailure(of: statement, on: connection) {
                        failures.append("\(statement.name): \(failure)")
                    }
                }
                #expect(failures.isEmpty, "statements that do not explain:\n\(failures.joined(separator: "\n"))")
            }
        }
    }

    /// The check itself: a statement naming a missing column is reported, with its name.
    @Test func aBrokenStatementIsReported() async throws {
        try await withTestDatabase(maxConnections: 1) { database in
            try await database.client.withConnection { connection in
                let failure = try await Self.explainFailure(of: MissingColumnStatement.self, on: connection)
                #expect(failure?.contains("no_such_column") == true, "\(String(describing: failure))")
            }
        }
    }

    private enum MissingColumnStatement: NamedStatement {
        static let name = "explain_test_missing_column"
        static let sql = "SELECT no_such_column FROM jobs WHERE id = $1"
    }

    /// Why `statement` does not prepare or explain, or nil when it does. Session-level `PREPARE` shares its namespace
    /// with the protocol-level statements PostgresNIO prepares, hence a name of the test's own.
    private static func explainFailure(
        of statement: any NamedStatement.Type, on connection: DatabaseConnection
    ) async throws -> String? {
        let logger = TestEnvironment.quietLogger
        let prepared = "lagw_explain_check"
        do {
            try await connection.query(
                PostgresQuery(unsafeSQL: "PREPARE \(prepared) AS \(statement.sql)"), logger: logger)
        } catch {
            return "does not prepare: \(Self.describe(error))"
        }
        var types: [String] = []
        let rows = try await connection.query(
            "SELECT parameter_types::text[] FROM pg_prepared_statements WHERE name = \(prepared)", logger: logger)
        for try await row in rows.decode([String].self) { types = row }
        let arguments = types.map { "NULL::\($0)" }.joined(separator: ", ")
        let call = types.isEmpty ? prepared : "\(prepared)(\(arguments))"
        var failure: String?
        do {
            let plan = try await connection.query(PostgresQuery(unsafeSQL: "EXPLAIN EXECUTE \(call)"), logger: logger)
            for try await _ in plan {}
        } catch {
            failure = "does not explain with parameters (\(types.joined(separator: ", "))): \(Self.describe(error))"
        }
        try await connection.query(PostgresQuery(unsafeSQL: "DEALLOCATE \(prepared)"), logger: logger)
        return failure
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError, let message = error.serverInfo?[.message] else {
            return String(reflecting: error)
        }
        return message
    }
}
