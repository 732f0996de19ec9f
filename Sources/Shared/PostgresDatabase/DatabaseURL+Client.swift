import PostgresNIO

extension DatabaseURL {
    /// The pool of a process on `server` (nil: the first). With `keepsOneOpen` (servers) one connection is kept open
    /// at all times, the rest are opened on demand and closed after a minute idle. Keeping every connection (minimum =
    /// maximum) saved postgres-nio's idle-timer task per query (30-50 us of gateway CPU a device call,
    /// `make bench-registry`, docs/benchmarks.md), but postgres-nio 1.33's pool then traps when
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
    public func clientConfiguration(
        maxConnections: Int, keepsOneOpen: Bool = false, server: Server? = nil
    ) -> PostgresClient.Configuration {
        let server = server ?? self.servers[0]
        var config = PostgresClient.Configuration(
            host: server.host,
            port: server.port,
            username: self.username,
            password: self.password,
            database: self.database,
            tls: self.clientTLS
        )
        config.options.maximumConnections = maxConnections
        config.options.minimumConnections = keepsOneOpen ? 1 : 0
        config.options.keepAliveBehavior = nil
        config.options.additionalStartupParameters = self.startupParameters
        return config
    }

    /// A single connection's configuration on `server`, as the pool's (`ServerProbe` asks each server with one).
    func connectionConfiguration(server: Server, connectTimeout: TimeAmount) throws -> PostgresConnection.Configuration
    {
        let tls: PostgresConnection.Configuration.TLS
        switch self.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try .init(configuration: .makeClientConfiguration()))
        case .require: tls = .require(try .init(configuration: .makeClientConfiguration()))
        }
        var config = PostgresConnection.Configuration(
            host: server.host, port: server.port, username: self.username, password: self.password,
            database: self.database, tls: tls)
        config.options.connectTimeout = connectTimeout
        config.options.additionalStartupParameters = self.startupParameters
        return config
    }

    private var clientTLS: PostgresClient.Configuration.TLS {
        switch self.tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
    }

    private var startupParameters: [(String, String)] {
        var parameters = [("jit", "off")] + Self.tcpKeepalive
        if let timeout = self.statementTimeout {
            let milliseconds =
                timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
            parameters.append(("statement_timeout", "\(milliseconds)ms"))
        }
        return parameters
    }

    /// A silent peer is probed after 60 s idle, every 10 s, and given up after 6 unanswered probes: a dead client's
    /// session ends within about two minutes. (Unix-domain sockets ignore these.)
    public static let tcpKeepalive: [(String, String)] = [
        ("tcp_keepalives_idle", "60"), ("tcp_keepalives_interval", "10"), ("tcp_keepalives_count", "6"),
        ("client_connection_check_interval", "10s"),
    ]
}
