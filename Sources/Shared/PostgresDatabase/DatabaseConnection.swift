import Logging
import PostgresNIO

/// A leased PostgreSQL connection whose statements `LostStatementGuard` bounds: what a transaction or
/// `DatabaseClient.withConnection` hands its body.
public struct DatabaseConnection: Sendable {
    private let base: PostgresConnection
    /// Where statements run (the express lane's thread for its pool; nil: the global pool).
    private let executor: (any TaskExecutor)?

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
        return try await LostStatementGuard.run(on: base, executor: self.executor, logger: logger) {
            try await base.query(query, logger: logger, file: file, line: line)
        }
    }

    /// Runs a prepared statement (prepared once per connection) and reads its rows.
    @discardableResult
    public func execute<Statement: PostgresPreparedStatement>(
        _ statement: Statement, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> CollectedRows<Statement.Row> where Statement.Row: Sendable {
        let base = self.base
        return try await LostStatementGuard.run(on: base, executor: self.executor, logger: logger) {
            var rows: [Statement.Row] = []
            for try await row in try await base.execute(statement, logger: logger, file: file, line: line) {
                rows.append(row)
            }
            return CollectedRows(rows)
        }
    }

    /// `LISTEN channel` for `consume`'s lifetime. Not guarded: PostgresNIO writes a LISTEN with a promise whose
    /// failure ends the notifications with an error.
    public func listen<Value>(
        on channel: String, consume: (PostgresNotificationSequence) async throws -> Value
    ) async throws -> Value {
        try await self.base.listen(on: channel, consume: consume)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws. Its errors, and those of
    /// `BEGIN` and `COMMIT`, come out as they are. A connection whose `ROLLBACK` failed is closed, not pooled again in
    /// the middle of a transaction.
    func transaction<Result>(
        logger: Logger, isolation: isolated (any Actor)? = #isolation,
        _ body: (DatabaseConnection) async throws -> sending Result
    ) async throws -> sending Result {
        try await self.query("BEGIN", logger: logger)
        let value: Result
        do {
            value = try await body(self)
        } catch {
            do {
                try await self.query("ROLLBACK", logger: logger)
            } catch {
                try? await self.base.close()
            }
            throw error
        }
        try await self.query("COMMIT", logger: logger)
        return value
    }
}
