import LiveActivitiesCore
import Logging
import NIOCore
import PostgresNIO

/// The one PostgreSQL pool of a process (`DatabaseClient`, on the server its URL chooses), plus the helpers every store
/// uses.
///
/// The client itself is a `Service`: executables put `database.client` first in their `ServiceGroup`.
public struct Database: Sendable {
    public let client: DatabaseClient
    public let logger: Logger

    /// `keepsOneOpen`: keep one connection open at all times, the others up to `maxConnections` on demand (servers;
    /// see `DatabaseURL.clientConfiguration`); otherwise all on demand (tools, tests).
    /// `eventLoopGroup`: where the connections live (an express lane gives its pool a thread of its own).
    /// `executor`: where statements run (the express lane's thread; nil: the global pool, or with
    /// `onConnectionsLoop` the event loop of the connection each runs on: the gateway's, whose loops serve its HTTP
    /// connections too, so that a statement's answer is read where its caller waits, without a hop to the global pool
    /// and back).
    public init(
        url: DatabaseURL, maxConnections: Int, keepsOneOpen: Bool = false,
        eventLoopGroup: any EventLoopGroup = PostgresClient.defaultEventLoopGroup,
        executor: (any TaskExecutor)? = nil, onConnectionsLoop: Bool = false, logger: Logger
    ) {
        self.client = DatabaseClient(
            url: url, maxConnections: maxConnections, keepsOneOpen: keepsOneOpen, eventLoopGroup: eventLoopGroup,
            executor: executor, onConnectionsLoop: onConnectionsLoop, logger: logger)
        self.logger = logger
    }

    /// Another store's view of the same pool, logging to `logger`.
    public init(client: DatabaseClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Runs `body` in one transaction. Errors thrown by `body` come out unwrapped, so typed API errors survive.
    public func transaction<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (DatabaseConnection) async throws -> sending Result
    ) async throws -> sending Result {
        let logger = self.logger
        return try await self.client.withConnection { connection in
            try await connection.transaction(logger: logger, body)
        }
    }
}

extension PSQLError {
    /// The SQLSTATE of a server error, e.g. `23505` for a unique violation.
    public var sqlState: String? { self.serverInfo?[.sqlState] }
}

extension Error {
    public var isUniqueViolation: Bool { (self as? PSQLError)?.sqlState == "23505" }
    public var isForeignKeyViolation: Bool { (self as? PSQLError)?.sqlState == "23503" }
    public var isUndefinedTable: Bool { (self as? PSQLError)?.sqlState == "42P01" }
    public var isDeadlock: Bool { (self as? PSQLError)?.sqlState == "40P01" }
}
