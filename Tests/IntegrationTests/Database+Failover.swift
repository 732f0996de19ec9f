import Foundation
import PostgresNIO
import PostgresStore
import Synchronization
import Testing

/// A multi-host `DATABASE_URL` (libpq's syntax) on a real primary and its streaming standby: the pool uses the server
/// `target_session_attrs` accepts, and follows a failover to the promoted standby without losing an acknowledged write.
@Suite(.serialized) struct DatabaseFailoverTests {
    @Test func theURLsTargetPicksTheServer() async throws {
        try await StreamingPair.run(synchronous: false) { pair in
            // The standby is listed first: libpq takes the first acceptable server in the URL's order.
            let cases: [(String, PrivatePostgres)] = [
                ("read-write", pair.primary), ("primary", pair.primary), ("any", pair.standby),
                ("read-only", pair.standby), ("standby", pair.standby), ("prefer-standby", pair.standby),
            ]
            for (target, expected) in cases {
                let url = try pair.url([pair.standby, pair.primary], target: target)
                let port = try await withDatabase(url, maxConnections: 2) { database in
                    try await Self.port(of: database, becomes: expected.port, within: .seconds(10))
                }
                #expect(port == expected.port, "target_session_attrs=\(target)")
            }
            // prefer-standby takes the primary when no standby answers.
            try PrivatePostgres.script("pg.sh", "stop", pair.standby.directory)
            let url = try pair.url([pair.standby, pair.primary], target: "prefer-standby")
            let port = try await withDatabase(url, maxConnections: 2) { database in
                try await Self.port(of: database, becomes: pair.primary.port, within: .seconds(10))
            }
            #expect(port == pair.primary.port)
        }
    }

    /// Writes run without pause while the primary is killed (SIGKILL, as a lost machine) and the standby promoted:
    /// they fail while no server takes writes, then go on on the standby, and every write acknowledged before, during
    /// and after is there. Synchronous replication is what makes the last true.
    @Test func writesFollowThePromotedStandbyAndNoAcknowledgedWriteIsLost() async throws {
        try await StreamingPair.run(synchronous: true) { pair in
            let url = try pair.url([pair.primary, pair.standby], target: "read-write")
            let database = Database(
                url: url, maxConnections: 6, keepsOneOpen: true, logger: TestEnvironment.quietLogger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await database.client.run() }
                defer { group.cancelAll() }
                try await database.client.query("CREATE TABLE acknowledged (n int PRIMARY KEY)")
                let tally = Tally()
                // Four writers, as a gateway's requests would.
                for writer in 0..<4 {
                    group.addTask {
                        var n = Int32(writer)
                        while !tally.stop.load(ordering: .relaxed) {
                            do {
                                try await database.client.query("INSERT INTO acknowledged VALUES (\(n))")
                                tally.acknowledged.withLock { $0.append(n) }
                                n += 4
                            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                                // A write whose answer was lost with the primary is in doubt: its commit may have
                                // reached the standby first (synchronous replication waits for exactly that), and
                                // then its retry finds the row. It was never acknowledged: the next key.
                                n += 4
                            } catch {
                                try await Task.sleep(for: .milliseconds(20))
                            }
                        }
                    }
                }
                try await Self.until(within: .seconds(10)) { tally.acknowledged.withLock { $0.count } >= 200 }
                // A statement surely running when the primary dies (the writers' may all be between two): it fails.
                group.addTask {
                    do {
                        try await database.client.query("SELECT pg_sleep(60)")
                        tally.inFlightFailed.withLock { $0 = false }
                    } catch {
                        tally.inFlightFailed.withLock { $0 = true }
                    }
                }
                try await Self.until(within: .seconds(10)) {
                    (try? await database.scalar(
                        "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)'", as: Int64.self))
                        == 1
                }
                try PrivatePostgres.script("pg.sh", "kill", pair.primary.directory)
                let killedAt = tally.acknowledged.withLock { $0.count }
                try PrivatePostgres.script("pg.sh", "promote", pair.standby.directory)
                let promoted = ContinuousClock.now
                try await Self.until(within: .seconds(30)) {
                    tally.acknowledged.withLock { $0.count } >= killedAt + 200
                        && tally.inFlightFailed.withLock { $0 } != nil
                }
                let resumedAfter = ContinuousClock.now - promoted
                tally.stop.store(true, ordering: .relaxed)
                let written = tally.acknowledged.withLock { $0 }
                let present = try await database.scalar(
                    "SELECT count(*) FROM acknowledged WHERE n = ANY(\(written))", as: Int64.self)
                #expect(present == Int64(written.count), "acknowledged writes missing after the failover")
                #expect(try await Self.port(of: database) == pair.standby.port)
                #expect(tally.inFlightFailed.withLock { $0 } == true, "the statement running when the primary died")
                print(
                    "failover: \(written.count) writes acknowledged, all present; resumed \(resumedAfter) after promotion"
                )
            }
        }
    }

    /// No statement runs when the primary dies, so none fails: the first after the promotion waits for a lease on the
    /// dead server's pool, which only the heartbeat can end (`make chaos`'s primary-lost waited there for PostgresNIO's
    /// 60 s circuit breaker before the heartbeat).
    @Test func anIdlePoolMovesWithoutAFailedStatement() async throws {
        try await StreamingPair.run(synchronous: false) { pair in
            let url = try pair.url([pair.primary, pair.standby], target: "read-write")
            let database = Database(
                url: url, maxConnections: 2, keepsOneOpen: true, logger: TestEnvironment.quietLogger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await database.client.run() }
                defer { group.cancelAll() }
                #expect(
                    try await Self.port(of: database, becomes: pair.primary.port, within: .seconds(10))
                        == pair.primary.port)
                try PrivatePostgres.script("pg.sh", "kill", pair.primary.directory)
                try PrivatePostgres.script("pg.sh", "promote", pair.standby.directory)
                let promoted = ContinuousClock.now
                let port = try await Self.port(of: database)
                let took = ContinuousClock.now - promoted
                #expect(port == pair.standby.port)
                #expect(took < .seconds(10), "the first statement after the promotion answered \(took) later")
            }
        }
    }

    /// What the writers saw.
    final class Tally: Sendable {
        let acknowledged = Mutex<[Int32]>([])
        /// Whether the statement running when the primary died failed (nil: it has not ended).
        let inFlightFailed = Mutex<Bool?>(nil)
        let stop = Atomic(false)
    }

    static func port(of database: Database) async throws -> Int {
        Int(try await database.scalar("SELECT inet_server_port()", as: Int32.self))
    }

    /// The server's port once it is `expected` (a new pool may still be opening); the last seen after `deadline`.
    static func port(of database: Database, becomes expected: Int, within deadline: Duration) async throws -> Int {
        let start = ContinuousClock.now
        var port = -1
        while ContinuousClock.now - start < deadline {
            port = (try? await Self.port(of: database)) ?? -1
            if port == expected { return port }
            try await Task.sleep(for: .milliseconds(50))
        }
        return port
    }

    static func until(within deadline: Duration, _ condition: () async -> Bool) async throws {
        let start = ContinuousClock.now
        while !(await condition()) {
            guard ContinuousClock.now - start < deadline else { throw TestSetupError("not within \(deadline)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
