import Logging
import PostgresNIO
import ServiceLifecycle

/// The process's PostgreSQL pool (PostgresNIO's `PostgresClient`), every statement bounded by `LostStatementGuard`.
///
/// A `Service`: executables put it first in their `ServiceGroup`.
public struct DatabaseClient: Service, Sendable {
    let base: PostgresClient
    /// Where statements run (the express lane's thread for its pool; nil: the global pool).
    let executor: (any TaskExecutor)?

    init(_ base: PostgresClient, executor: (any TaskExecutor)?) {
        self.base = base
        self.executor = executor
    }

    private static let silent = Logger(label: "lagw.postgres.silent", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs the pool until graceful shutdown.
    public func run() async {
        await self.base.run()
    }

    /// Runs `query` on a pooled connection and reads its rows.
    @discardableResult
    public func query(_ query: PostgresQuery, logger: Logger? = nil, file: String = #fileID, line: Int = #line)
        async throws -> CollectedRows<PostgresRow>
    {
        try await self.withConnection { connection in
            CollectedRows(
                try await connection.query(query, logger: logger ?? Self.silent, file: file, line: line).collect())
        }
    }

    /// Runs a prepared statement on a pooled connection (prepared once per connection) and reads its rows.
    public func execute<Statement: PostgresPreparedStatement>(
        _ statement: Statement, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> CollectedRows<Statement.Row> where Statement.Row: Sendable {
        try await self.withConnection { connection in
            try await connection.execute(statement, logger: logger, file: file, line: line)
        }
    }

    /// Leases a connection for `body`'s lifetime.
    public func withConnection<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (DatabaseConnection) async throws -> sending Result
    ) async throws -> sending Result {
        let executor = self.executor
        return try await self.base.withConnection(isolation: isolation) { connection in
            try await body(DatabaseConnection(connection, executor: executor))
        }
    }
}
