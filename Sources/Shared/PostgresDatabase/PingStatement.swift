import Logging
import PostgresNIO

/// The cheapest round trip: a health check's proof that PostgreSQL answers.
public enum PingStatement: NamedStatement {
    public static let name = "lagw_ping"
    public static let sql = "SELECT 1"
}

extension DatabaseClient {
    /// Runs `PingStatement` on a pooled connection.
    public func ping(logger: Logger) async throws {
        try await self.query(PingStatement.query(), logger: logger)
    }
}
