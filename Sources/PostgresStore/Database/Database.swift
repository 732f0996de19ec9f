import LiveActivitiesCore
import Logging
import NIOCore
import PostgresNIO

/// The one `PostgresClient` pool of a process, plus the helpers every store uses.
///
/// The client itself is a `Service`: executables put `database.client` first in their `ServiceGroup`.
public struct Database: Sendable {
    public let client: PostgresClient
    public let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// `keepsOneOpen`: keep one connection open at all times, the others up to `maxConnections` on demand (servers;
    /// see `DatabaseURL.clientConfiguration`); otherwise all on demand (tools, tests).
    /// `eventLoopGroup`: where the connections live (an express lane gives its pool a thread of its own).
    public init(
        url: DatabaseURL, maxConnections: Int, keepsOneOpen: Bool = false,
        eventLoopGroup: any EventLoopGroup = PostgresClient.defaultEventLoopGroup, logger: Logger
    ) {
        self.init(
            client: PostgresClient(
                configuration: url.clientConfiguration(maxConnections: maxConnections, keepsOneOpen: keepsOneOpen),
                eventLoopGroup: eventLoopGroup, backgroundLogger: logger),
            logger: logger
        )
    }

    /// Runs `body` in one transaction. Errors thrown by `body` come out unwrapped, so typed API errors survive.
    public func transaction<Result: Sendable>(
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await self.client.withTransaction(logger: self.logger) { connection in
                try await body(connection)
            }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error.commitError ?? error.beginError ?? error
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
