import Foundation
import PostgresNIO
import PostgresStore
import Testing

/// A server's pool outlives PostgreSQL going away: stopped while queries run, started again, restarted, its
/// connections terminated. postgres-nio 1.33's pool trapped here (and took the gateway with it) when it kept every
/// connection as a minimum (seen in `make chaos`; this test does not reliably reach that interleaving).
@Suite struct DatabaseOutageTests {
    @Test func aServersPoolAnswersAgainAfterPostgreSQLStopsRestartsAndKillsItsConnections() async throws {
        try await PrivatePostgres.run { server in
            let database = Database(
                url: try server.url, maxConnections: 6, keepsOneOpen: true, logger: TestEnvironment.quietLogger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await database.client.run() }
                try await Self.answers(database, within: .seconds(10))

                try server.stop()
                // Leases while it is down: connection attempts fail, and the pool drops all but one.
                let failing = ContinuousClock.now
                while ContinuousClock.now - failing < .milliseconds(1500) {
                    await Self.queries(database, count: 8)
                    try await Task.sleep(for: .milliseconds(200))
                }
                try server.start()
                try await Self.answers(database, within: .seconds(30))

                try server.restart()
                try await Self.answers(database, within: .seconds(30))

                // Its connections terminated one at a time, every 100 ms for 2.5 s, while queries run.
                let killer = Database(url: try server.url, maxConnections: 1, logger: TestEnvironment.quietLogger)
                group.addTask { await killer.client.run() }
                let terminating = ContinuousClock.now
                while ContinuousClock.now - terminating < .milliseconds(2500) {
                    async let load = Self.queries(database, count: 8)
                    _ = await Self.within(.seconds(2)) {
                        _ = try await killer.client.query(
                            """
                            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                            WHERE pid <> pg_backend_pid() AND backend_type = 'client backend' ORDER BY random() LIMIT 1
                            """
                        ).collect()
                    }
                    try await Task.sleep(for: .milliseconds(100))
                    _ = await load
                }
                try await Self.answers(database, within: .seconds(30))
                group.cancelAll()
            }
        }
    }

    /// Eight queries at once, until all of them answer; fails after `deadline`.
    static func answers(_ database: Database, within deadline: Duration) async throws {
        let start = ContinuousClock.now
        while await Self.queries(database, count: 8) < 8 {
            guard ContinuousClock.now - start < deadline else {
                Issue.record("PostgreSQL did not answer within \(deadline)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Runs `count` queries at once; answers how many succeeded.
    @discardableResult
    static func queries(_ database: Database, count: Int) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask {
                    await Self.within(.seconds(2)) {
                        _ = try await database.client.query("SELECT pg_sleep(0.05)", logger: database.logger).collect()
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }

    /// Whether `body` succeeded within `limit`: a lease the pool never serves counts as a failure, not a hang (its
    /// task is left behind: a stranded lease does not answer cancellation either).
    static func within(_ limit: Duration, _ body: @escaping @Sendable () async throws -> Void) async -> Bool {
        let outcome = AsyncStream<Bool>.makeStream()
        let work = Task {
            do {
                try await body()
                outcome.continuation.yield(true)
            } catch {
                outcome.continuation.yield(false)
            }
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            outcome.continuation.yield(false)
        }
        var iterator = outcome.stream.makeAsyncIterator()
        let first = await iterator.next() ?? false
        outcome.continuation.finish()
        work.cancel()
        timer.cancel()
        return first
    }
}
