import Logging
import PostgresNIO

/// A leased PostgreSQL connection whose statements `LostStatementGuard` bounds: what a transaction or
/// `DatabaseClient.withConnection` hands its body.
public struct DatabaseConnection: Sendable {
    let base: PostgresConnection
    /// Where statements run (the express lane's thread for its pool; nil: the global pool).
    let executor: (any TaskExecutor)?

    init(_ base: PostgresConnection, executor: (any TaskExecutor)?) {
        self.base = base
        self.executor = executor
    }

    /// Runs `query`; its rows stream as PostgresNIO's do.
    @discardableResult
    public func query(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line)
        async throws -> PostgresRowSequence
    {
        let base = self.base
        return try await LostStatementGuard.run(on: base, executor: self.executor) {
            try await base.query(query, logger: logger, file: file, line: line)
        }
    }

    /// Runs a prepared statement (prepared once per connection) and reads its rows.
    public func execute<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger)
        async throws -> CollectedRows<Statement.Row> where Statement.Row: Sendable
    {
        let base = self.base
        return try await LostStatementGuard.run(on: base, executor: self.executor) {
            var rows: [Statement.Row] = []
            for try await row in try await base.execute(statement, logger: logger) { rows.append(row) }
            return CollectedRows(rows)
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws. Its errors, and those of
    /// `BEGIN` and `COMMIT`, come out as they are.
    func transaction<Result>(
        logger: Logger, isolation: isolated (any Actor)? = #isolation,
        _ body: (DatabaseConnection) async throws -> sending Result
    ) async throws -> sending Result {
        try await self.query("BEGIN", logger: logger)
        let value: Result
        do {
            value = try await body(self)
        } catch {
            _ = try? await self.query("ROLLBACK", logger: logger)
            throw error
        }
        try await self.query("COMMIT", logger: logger)
        return value
    }
}
