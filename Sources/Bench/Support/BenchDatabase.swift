import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The bench's PostgreSQL connection (PostgresNIO): statements whose one text column is what the bench prints.
final class BenchDatabase: Sendable {
    let client: PostgresClient
    private let runner: Task<Void, Never>

    init(host: String, port: Int, database: String = "postgres") {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: "postgres", password: nil, database: database, tls: .disable)
        configuration.options.maximumConnections = 4
        // Named, so that `bench chaos` terminating random client backends leaves the bench's own alone.
        configuration.options.additionalStartupParameters = [("application_name", "bench")]
        var logger = Logger(label: "bench-db")
        logger.logLevel = .critical
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.runner = Task { await client.run() }
    }

    /// Closes the connections (before a server restart, or `CREATE DATABASE ... TEMPLATE` of this one).
    func close() async {
        self.runner.cancel()
        await self.runner.value
    }

    /// Runs statements one by one, as psql does with a script (VACUUM cannot share a transaction).
    func run(_ statements: String...) async throws {
        for sql in statements {
            // Drained, not decoded: some return void (pg_stat_statements_reset, pg_reload_conf's bool is fine).
            for try await _ in try await self.client.query(PostgresQuery(unsafeSQL: sql)) {}
        }
    }

    /// The first column of every row, as text (NULL as "", as psql -At prints it).
    func rows(_ sql: String, _ binds: String...) async throws -> [String] {
        var bindings = PostgresBindings()
        for value in binds { bindings.append(value) }
        let rows = try await self.client.query(PostgresQuery(unsafeSQL: sql, binds: bindings))
        var out: [String] = []
        for try await row in rows {
            if let cell = row.first { out.append(try Self.text(cell)) }
        }
        return out
    }

    /// The first column of the first row, as text ("" when NULL or no row).
    func text(_ sql: String, _ binds: String...) async throws -> String {
        var bindings = PostgresBindings()
        for value in binds { bindings.append(value) }
        let rows = try await self.client.query(PostgresQuery(unsafeSQL: sql, binds: bindings))
        var first: String?
        for try await row in rows where first == nil {
            if let cell = row.first { first = try Self.text(cell) }
        }
        return first ?? ""
    }

    /// A cell as psql prints it: counts and ids in text, NULL as "".
    static func text(_ cell: PostgresCell) throws -> String {
        if cell.bytes == nil { return "" }
        switch cell.dataType {
        case .int2, .int4, .int8: return String(try cell.decode(Int64.self))
        case .uuid: return try cell.decode(UUID.self).uuidString.lowercased()
        case .float4, .float8: return String(try cell.decode(Double.self))
        case .bool: return try cell.decode(Bool.self) ? "t" : "f"
        case .numeric: return "\(try cell.decode(Decimal.self))"
        case .text, .varchar, .name, .bpchar: return try cell.decode(String.self)
        // An enum (a push's state): its label, as text.
        default: return String(buffer: cell.bytes!)
        }
    }
}
