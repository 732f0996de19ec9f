import Foundation
import JobQueue
import LiveActivitiesCore
import PostgresDatabase
import Testing

@Suite struct JobQueueRetryTests {
    @Test func aFailingJobIsRetriedWithGrowingDelaysThenDeadLettered() async throws {
        try await withTestDatabase { database in
            let queue = PostgresJobQueue(database: database)
            let id = try #require(try await queue.enqueue([JobRequest(kind: "flaky", appID: 1, maxAttempts: 4)]).first)
            let log = RunLog()
            let failing = ClosureJobHandler { job, _ in
                log.record(job, owner: "r")
                throw TestSetupError("always fails")
            }
            let backoff = Backoff(base: .milliseconds(200), cap: .seconds(10), jitter: 0)
            try await withThrowingTaskGroup(of: Void.self) { group in
                try Task.checkCancellation()  // makes the closure throwing for #expect(try ...)
                group.addTask {
                    try await runner(
                        queue, owner: "r", handlers: ["flaky": failing], poll: .milliseconds(50), backoff: backoff
                    ).run()
                }
                #expect(
                    try await eventually(timeout: .seconds(20)) {
                        try await database.scalar("SELECT count(*) FROM jobs WHERE state = 'dead'", as: Int64.self) == 1
                    })
                group.cancelAll()
            }
            let runs = log.all
            #expect(runs.map(\.attempt) == [1, 2, 3, 4])
            let gaps = zip(runs.dropFirst(), runs).map { $0.at - $1.at }
            // 200 ms, 400 ms, 800 ms (jitter 0): a retry is never claimed before its planned delay.
            #expect(gaps[0] >= .milliseconds(190))
            #expect(gaps[1] >= .milliseconds(390))
            #expect(gaps[2] >= .milliseconds(790))
            let error = try await database.scalar("SELECT last_error FROM jobs WHERE id = \(id)", as: String.self)
            #expect(error.contains("always fails"))
        }
    }

    @Test func aPermanentErrorDeadLettersAtOnce() async throws {
        try await withTestDatabase { database in
            let queue = PostgresJobQueue(database: database)
            _ = try await queue.enqueue([JobRequest(kind: "bad", appID: 1, maxAttempts: 5)])
            let handler = ClosureJobHandler { _, _ in throw JobError.permanent("payload can never work") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                try Task.checkCancellation()  // makes the closure throwing for #expect(try ...)
                group.addTask { try await runner(queue, owner: "r", handlers: ["bad": handler]).run() }
                #expect(
                    try await eventually {
                        try await database.scalar(
                            "SELECT count(*) FROM jobs WHERE state = 'dead' AND attempts = 1", as: Int64.self) == 1
                    })
                group.cancelAll()
            }
        }
    }
}
