import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle

/// The process's PostgreSQL pool (PostgresNIO's `PostgresClient`) on the server its URL chooses (`ServerChoice`:
/// with several servers listed, the one `target_session_attrs` accepts, followed through a failover), every
/// statement bounded by `LostStatementGuard`.
///
/// A `Service`: executables put it first in their `ServiceGroup`.
public struct DatabaseClient: Service, Sendable {
    let choice: ServerChoice
    /// Where statements run (the express lane's thread for its pool; nil: `onConnectionsLoop` decides).
    let executor: (any TaskExecutor)?
    /// With no `executor`: a statement runs on its connection's event loop, else on the global pool.
    let onConnectionsLoop: Bool

    init(
        url: DatabaseURL, maxConnections: Int, keepsOneOpen: Bool, eventLoopGroup: any EventLoopGroup,
        executor: (any TaskExecutor)?, onConnectionsLoop: Bool, logger: Logger
    ) {
        self.choice = ServerChoice(url: url, eventLoopGroup: eventLoopGroup, logger: logger) { server in
            PostgresClient(
                configuration: url.clientConfiguration(
                    maxConnections: maxConnections, keepsOneOpen: keepsOneOpen, server: server),
                eventLoopGroup: eventLoopGroup, backgroundLogger: logger)
        }
        self.executor = executor
        self.onConnectionsLoop = onConnectionsLoop
    }

    private static let silent = Logger(label: "lagw.postgres.silent", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs the pool until graceful shutdown.
    public func run() async {
        await self.choice.run()
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
    @discardableResult
    public func execute<Statement: PostgresPreparedStatement>(
        _ statement: Statement, logger: Logger, file: String = #fileID, line: Int = #line
    ) async throws -> CollectedRows<Statement.Row> where Statement.Row: Sendable {
        try await self.withConnection { connection in
            try await connection.execute(statement, logger: logger, file: file, line: line)
        }
    }

    /// Leases a connection for `body`'s lifetime. A lease that failed because its pool's server was left for another
    /// (a failover) is asked again of the new pool; `body` runs at most once.
    public func withConnection<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (DatabaseConnection) async throws -> sending Result
    ) async throws -> sending Result {
        let (executor, onConnectionsLoop) = (self.executor, self.onConnectionsLoop)
        while true {
            let pool = self.choice.current
            var leased = false
            do {
                return try await pool.client.withConnection(isolation: isolation) { connection in
                    leased = true
                    let placed =
                        executor ?? (onConnectionsLoop ? EventLoopTaskExecutor(eventLoop: connection.eventLoop) : nil)
                    return try await body(DatabaseConnection(connection, executor: placed))
                }
            } catch {
                if !leased && pool.isRetired { continue }
                if !leased || error.mayMeanServerLost { self.choice.suspect() }
                throw error
            }
        }
    }
}

extension Error {
    /// Whether a statement's error may mean its server is gone or no longer takes writes: the connection failed or
    /// closed under it, or the server said so (SQLSTATE class 08, connection exception; 57P01-57P03, shutting down or
    /// starting; 25006, read-only transaction: a standby).
    public var mayMeanServerLost: Bool {
        if self is LostStatementError { return true }
        guard let error = self as? PSQLError else { return false }
        if let state = error.sqlState { return state.hasPrefix("08") || state.hasPrefix("57P") || state == "25006" }
        return [.serverClosedConnection, .connectionError, .uncleanShutdown, .clientClosedConnection].contains(
            error.code)
    }
}
