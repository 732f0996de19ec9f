import Foundation
import Testing

@testable import JobQueue
@testable import PostgresStore
@testable import Worker

/// The worker's `/healthz` fails when PostgreSQL does not answer or the runner's LISTEN connection is down.
@Suite struct WorkerHealthTests {
    @Test func healthFollowsTheDatabaseAndTheListenConnection() async throws {
        try await withTestDatabaseURL { database, _ in
            let flag = ListeningFlag()
            let health = WorkerHealth(database: database, listening: flag, timeout: .seconds(1))
            #expect(await health.problem() == nil)
            flag.set(false)
            #expect(await health.problem() == "the LISTEN connection to PostgreSQL is down")
        }
        let gone = Database(
            url: try DatabaseURL("postgres://postgres@127.0.0.1:1/none"), maxConnections: 1,
            logger: TestEnvironment.quietLogger)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await gone.client.run() }
            let health = WorkerHealth(database: gone, listening: ListeningFlag(), timeout: .milliseconds(500))
            let start = ContinuousClock.now
            #expect(await health.problem() == "PostgreSQL does not answer")
            #expect(ContinuousClock.now - start < .seconds(5))
            group.cancelAll()
        }
    }
}
