import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The pool a `DatabaseClient` leases from, on the server of its URL that `target_session_attrs` accepts, and the
/// move to another server when that one is lost (a failover).
///
/// With one server there is nothing to choose: one pool, as it always was. With several, the first acceptable server
/// is asked for at start (`ServerProbe`), and again whenever a statement or a lease fails in a way that may mean the
/// server is gone (`DatabaseClient` calls `suspect()`) or the chosen server's heartbeat (a question a second on one
/// connection of its own) goes unanswered or says it is no longer acceptable; while none is acceptable (a standby
/// not yet promoted) it asks every half second. When another server is chosen, a new pool opens on it and, once it
/// runs, the old one is retired: its `run()` ends, so that leases still waiting on it fail at once and are asked again
/// of the new pool.
final class ServerChoice: Sendable {
    /// One pool on one server of the URL.
    final class Pool: Sendable {
        let generation: Int
        let server: Int
        let client: PostgresClient
        private let retirement = Wakeup()
        private let retiredFlag = Atomic(false)

        init(generation: Int, server: Int, client: PostgresClient) {
            self.generation = generation
            self.server = server
            self.client = client
        }

        /// Whether another pool has taken this one's place.
        var isRetired: Bool { self.retiredFlag.load(ordering: .acquiring) }

        func retire() {
            self.retiredFlag.store(true, ordering: .releasing)
            self.retirement.signal()
        }

        /// Runs the pool until graceful shutdown or its retirement.
        /// `running` is called just before the pool runs, on its task (PostgresNIO warns of a lease before `run()`).
        func run(running: @escaping @Sendable () -> Void = {}) async {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    running()
                    await self.client.run()
                }
                group.addTask { await self.retirement.wait() }
                await group.next()
                group.cancelAll()
            }
        }
    }

    private let url: DatabaseURL
    private let makeClient: @Sendable (DatabaseURL.Server) -> PostgresClient
    private let probe: ServerProbe
    private let logger: Logger
    /// The one pool of a one-server URL, read without a lock.
    private let only: Pool?
    private let chosen: Mutex<Pool>
    private let suspicion = Wakeup()
    private let started: (stream: AsyncStream<Pool>, continuation: AsyncStream<Pool>.Continuation)

    init(
        url: DatabaseURL, eventLoopGroup: any EventLoopGroup, logger: Logger,
        makeClient: @escaping @Sendable (DatabaseURL.Server) -> PostgresClient
    ) {
        self.url = url
        self.makeClient = makeClient
        self.probe = ServerProbe(url: url, eventLoopGroup: eventLoopGroup, logger: logger)
        self.logger = logger
        let first = Pool(generation: 0, server: 0, client: makeClient(url.servers[0]))
        self.only = url.servers.count == 1 ? first : nil
        self.chosen = Mutex(first)
        self.started = AsyncStream.makeStream()
    }

    /// The pool to lease from now.
    var current: Pool { self.only ?? self.chosen.withLock { $0 } }

    /// A statement or lease failed in a way that may mean the server is gone: ask the servers again.
    func suspect() {
        guard self.only == nil else { return }
        self.suspicion.signal()
    }

    /// Runs the chosen pool (and, with several servers, the choice and every pool chosen since) until graceful
    /// shutdown.
    func run() async {
        if let only = self.only { return await only.client.run() }
        let first = self.current
        await withDiscardingTaskGroup { group in
            group.addTask { await first.run() }
            group.addTask {
                await cancelWhenGracefulShutdown { await self.watch() }
                self.started.continuation.finish()
            }
            // A new pool becomes the one to lease from, and its predecessor is retired, once it runs.
            for await pool in self.started.stream {
                group.addTask {
                    await pool.run {
                        // A later choice that ran first wins: this one is retired at once.
                        let retired = self.chosen.withLock { chosen in
                            guard pool.generation > chosen.generation else { return pool }
                            defer { chosen = pool }
                            return chosen
                        }
                        retired.retire()
                    }
                }
            }
        }
    }

    /// Asks the servers at start, at each suspicion, and whenever the chosen server stops answering or stops being
    /// acceptable: a heartbeat asks it every second on a connection kept for that (a lease that waits on a dead
    /// server's pool fails no statement, so only the heartbeat notices). Until a server is acceptable, every half
    /// second.
    private func watch() async {
        var outage: ContinuousClock.Instant?
        var heartbeat: (server: Int, connection: PostgresConnection)?
        var suspected = true
        // The pool last chosen here (it becomes `self.current` once it runs).
        var current = self.current
        while !Task.isCancelled {
            if !suspected, let state = await self.beat(&heartbeat, server: current.server),
                self.url.targetSessionAttributes.accepts(state)
            {
                suspected = await self.suspicionWithin(.seconds(1))
                continue
            }
            guard let index = await self.probe.choose(current: current.server) else {
                // Said once an outage, not every half second.
                if outage == nil {
                    outage = .now
                    self.logger.warning(
                        "no database server is acceptable; asking every 0.5 s",
                        metadata: [
                            "servers": "\(self.url.servers)",
                            "target_session_attrs": "\(self.url.targetSessionAttributes)",
                        ])
                }
                try? await Task.sleep(for: .milliseconds(500))
                suspected = true
                continue
            }
            if let start = outage {
                self.logger.notice("a database server is acceptable again", metadata: ["after": "\(.now - start)"])
                outage = nil
            }
            if index != current.server { current = self.move(from: current, to: index) }
            suspected = await self.suspicionWithin(.seconds(1))
        }
        try? await heartbeat?.connection.close()
    }

    /// What the chosen server says of itself on the heartbeat's connection (opened again when it is closed or on
    /// another server); nil when it does not answer.
    private func beat(
        _ heartbeat: inout (server: Int, connection: PostgresConnection)?, server: Int
    ) async -> TargetSessionAttributes.ServerState? {
        if let kept = heartbeat, kept.server != server || kept.connection.isClosed {
            try? await kept.connection.close()
            heartbeat = nil
        }
        if heartbeat == nil {
            guard let connection = await self.probe.connect(server) else { return nil }
            heartbeat = (server, connection)
        }
        guard let kept = heartbeat, let state = await self.probe.ask(kept.connection) else {
            heartbeat = nil
            return nil
        }
        return state
    }

    /// Whether a suspicion arrived within `limit` (false: the time passed).
    private func suspicionWithin(_ limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.suspicion.wait()
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func move(from old: Pool, to index: Int) -> Pool {
        let pool = Pool(generation: old.generation + 1, server: index, client: self.makeClient(self.url.servers[index]))
        self.started.continuation.yield(pool)
        self.logger.warning(
            "database server changed",
            metadata: [
                "from": "\(self.url.servers[old.server])", "to": "\(self.url.servers[index])",
                "target_session_attrs": "\(self.url.targetSessionAttributes)",
            ])
        return pool
    }
}
