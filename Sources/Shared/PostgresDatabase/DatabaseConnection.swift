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
    ///
    /// PostgresNIO keeps a statement whose preparation failed as failed on its connection, and answers every later
    /// call of it there with the same error: a claim whose first `Parse` waited out `lock_timeout` or
    /// `statement_timeout` behind a lock, or met a table a migration was changing, would fail on that connection for
    /// as long as it lived. So on an error that a preparation can meet (`mayHaveFailedPreparation`) the connection is
    /// closed, and the pool opens another; the error still comes out.
    @discardableResult
    public func execute<Statement: PostgresPreparedStatement>(
        _ statement: Statement, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> CollectedRows<Statement.Row> where Statement.Row: Sendable {
        let base = self.base
        do {
            return try await LostStatementGuard.run(on: base, executor: self.executor, logger: logger) {
                var rows: [Statement.Row] = []
                for try await row in try await base.execute(statement, logger: logger, file: file, line: line) {
                    rows.append(row)
                }
                return CollectedRows(rows)
            }
        } catch let error as PSQLError where error.mayHaveFailedPreparation {
            try? await base.close()
            throw error
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

extension PSQLError {
    /// Whether the server's error may have come from preparing the statement rather than running it: a timeout or
    /// cancel (SQLSTATE 57014), a lock not granted (55P03), a statement that no longer parses against the schema
    /// (class 42) or whose cached plan no longer fits it (0A000), a prepared statement the server no longer has
    /// (26000). Not integrity violations and the like (classes 22, 23, 40), which callers expect of a running
    /// statement (`TrackStatement` answers a unique violation by retrying serialized) and which keep the connection.
    var mayHaveFailedPreparation: Bool {
        guard let state = self.sqlState else { return false }
        return state == "57014" || state == "55P03" || state == "0A000" || state == "26000" || state.hasPrefix("42")
    }
}
