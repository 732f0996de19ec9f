import Foundation
import LiveActivitiesCore
import PostgresNIO

/// A `postgres://user:password@host:port/database?sslmode=disable|prefer|require` URL.
public struct DatabaseURL: Sendable, Equatable {
    public struct ParseError: Error, Equatable {
        public let reason: String
    }

    public enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// `statement_timeout` of every session of the pool (nil: PostgreSQL's default, none).
    public var statementTimeout: Duration?

    public init(_ string: String) throws {
        guard let components = URLComponents(string: string),
            let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme)
        else {
            throw ParseError(reason: "must be a postgres:// URL like postgres://user:pass@localhost:5432/db")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ParseError(reason: "has no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw ParseError(reason: "has no user name")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !database.isEmpty else {
            throw ParseError(reason: "has no database name (the path after the port)")
        }
        var tls = TLSMode.disable
        if let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value {
            guard let parsed = TLSMode(rawValue: mode) else {
                throw ParseError(reason: "sslmode must be disable, prefer or require, got '\(mode)'")
            }
            tls = parsed
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database
        self.tls = tls
    }

    /// The pool of a process. With `keepsOneOpen` (servers) one connection is kept open at all times, the rest are
    /// opened on demand and closed after a minute idle. Keeping every connection (minimum = maximum) saved
    /// postgres-nio's idle-timer task per query (30-50 us of gateway CPU a device call, `make bench-registry`,
    /// docs/benchmarks.md), but postgres-nio 1.33's pool then traps when
    /// PostgreSQL comes back from an outage: while connections fail it keeps one retrying and drops the rest, and the
    /// next lease finds fewer than the minimum and fails a precondition (`createNewDemandConnectionIfPossible`;
    /// `make chaos`, pg-stop then term-backends, crashed the gateway). One survives: the retrying connection counts.
    /// Keep-alive queries are off: a connection the server closes is noticed by its socket and replaced, and the
    /// server probes for a vanished client (``tcpKeepalive``).
    /// JIT compilation is off for our sessions: PostgreSQL compiles any statement whose estimate passes
    /// `jit_above_cost`, and a start's chunk select (its probes estimated per target) spent 3.3 s compiling to run
    /// for 150 ms; every statement here is short and runs once.
    /// TCP keepalive is asked of the server for each session (``tcpKeepalive``): postgres-nio opens its sockets
    /// itself and offers no socket option, so the server probes the link and ends the backend of a client that
    /// vanished (its locks and its LISTEN go with it), and a query of a vanished client is stopped within
    /// `client_connection_check_interval`.
    public func clientConfiguration(maxConnections: Int, keepsOneOpen: Bool = false) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        switch self.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(.makeClientConfiguration())
        case .require: tls = .require(.makeClientConfiguration())
        }
        var config = PostgresClient.Configuration(
            host: self.host,
            port: self.port,
            username: self.username,
            password: self.password,
            database: self.database,
            tls: tls
        )
        config.options.maximumConnections = maxConnections
        config.options.minimumConnections = keepsOneOpen ? 1 : 0
        config.options.keepAliveBehavior = nil
        config.options.additionalStartupParameters = [("jit", "off")] + Self.tcpKeepalive
        if let timeout = self.statementTimeout {
            let milliseconds =
                timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
            config.options.additionalStartupParameters.append(("statement_timeout", "\(milliseconds)ms"))
        }
        return config
    }

    /// A silent peer is probed after 60 s idle, every 10 s, and given up after 6 unanswered probes: a dead client's
    /// session ends within about two minutes. (Unix-domain sockets ignore these.)
    public static let tcpKeepalive: [(String, String)] = [
        ("tcp_keepalives_idle", "60"), ("tcp_keepalives_interval", "10"), ("tcp_keepalives_count", "6"),
        ("client_connection_check_interval", "10s"),
    ]
}
