import PostgresDatabase
import PostgresNIO

/// The first column of the first row, for checks that read one value.
extension Database {
    public func scalar<T: PostgresDecodable & Sendable>(_ query: PostgresQuery, as: T.Type = T.self) async throws -> T {
        let rows = try await self.client.query(query, logger: self.logger)
        for try await value in rows.decode(T.self) { return value }
        throw TestSetupError("query returned no row")
    }
}
