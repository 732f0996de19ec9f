import Foundation
import JobQueue
import LiveActivitiesCore
import PostgresDatabase
import Testing

@Suite struct JobQueueBackoffTests {
    @Test func failuresAreRequeuedAfterTheirDelayAndDeadLetteredWhenOutOfAttempts() async throws {
        try await withTestDatabase { database in
            let queue = PostgresJobQueue(database: database)
            let id = try #require(try await queue.enqueue([JobRequest(kind: "x", appID: 1, maxAttempts: 2)]).first)
            var planned: [Double] = []
            for delay in [Duration.seconds(60), .seconds(120)] {
                // Make it due and claim it.
                try await database.client.query("UPDATE jobs SET run_at = now() WHERE id = \(id)")
                let claimed = try await queue.claim(limit: 1, owner: "w", lease: .seconds(30))
                #expect(claimed.map(\.id) == [id])
                let outcome = try await queue.fail(
                    [JobFailure(jobID: id, retryAfter: delay, error: "nope")], owner: "w")
                planned.append(
                    try await database.scalar(
                        "SELECT extract(epoch FROM run_at - now())::float8 FROM jobs WHERE id = \(id)", as: Double.self)
                )
                #expect(outcome[id] == (planned.count == 1 ? .retried : .dead))
            }
            #expect(abs(planned[0] - 60) < 5)
            #expect(try await database.scalar("SELECT state FROM jobs WHERE id = \(id)", as: String.self) == "dead")
            // A failure reported by a runner that no longer holds the lease changes nothing.
            #expect(
                try await queue.fail([JobFailure(jobID: id, retryAfter: .seconds(1), error: "late")], owner: "w")
                    .isEmpty)
        }
    }
}
