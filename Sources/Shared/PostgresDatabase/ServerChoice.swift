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
/// server is gone (`DatabaseClient` calls `suspect()`); while none is acceptable (a standby not yet promoted) it asks
/// every half second. When another server is chosen, a new pool opens on it and the old one is retired: its `run()`
/// ends, so that leases still waiting on it fail at once and are asked again of the new pool.
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
        func run() async {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.client.run() }
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
            for await pool in self.started.stream {
                group.addTask { await pool.run() }
            }
        }
    }

    /// Asks the servers at start and at each suspicion; until one is acceptable, every half second.
    private func watch() async {
        var since: ContinuousClock.Instant?
        while !Task.isCancelled {
            let current = self.current
            guard let index = await self.probe.choose(current: current.server) else {
                // Said once an outage, not every half second.
                if since == nil {
                    since = .now
                    self.logger.warning(
                        "no database server is acceptable; asking every 0.5 s",
                        metadata: [
                            "servers": "\(self.url.servers)",
                            "target_session_attrs": "\(self.url.targetSessionAttributes)",
                        ])
                }
                try? await Task.sleep(for: .milliseconds(500))
                continue
            }
            if let start = since {
                self.logger.notice("a database server is acceptable again", metadata: ["after": "\(.now - start)"])
                since = nil
            }
            if index != current.server { self.move(from: current, to: index) }
            await self.suspicion.wait()
        }
    }

    private func move(from old: Pool, to index: Int) {
        let pool = Pool(generation: old.generation + 1, server: index, client: self.makeClient(self.url.servers[index]))
        self.chosen.withLock { $0 = pool }
        self.started.continuation.yield(pool)
        old.retire()
        self.logger.warning(
            "database server changed",
            metadata: [
                "from": "\(self.url.servers[old.server])", "to": "\(self.url.servers[index])",
                "target_session_attrs": "\(self.url.targetSessionAttributes)",
            ])
    }
}
