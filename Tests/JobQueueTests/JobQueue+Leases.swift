import Foundation
import JobQueue
import PostgresDatabase
import Testing

@Suite struct JobQueueLeaseTests {
    @Test func aJobWhoseClaimerDiesRunsAgainAfterItsLease() async throws {
        try await withTestDatabase { database in
            let queue = PostgresJobQueue(database: database)
            let id = try #require(try await queue.enqueue([JobRequest(kind: "work", appID: 1)]).first)

            // A claimer takes the job and dies: it never completes, fails or extends the lease.
            let claimed = try await queue.claim(limit: 10, owner: "doomed", lease: .seconds(1))
            #expect(claimed.map(\.id) == [id])
            #expect(try await queue.claim(limit: 10, owner: "other", lease: .seconds(1)).isEmpty)

            let log = RunLog()
            let handler = ClosureJobHandler { job, _ in log.record(job, owner: "survivor") }
            let started = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                try Task.checkCancellation()  // makes the closure throwing for #expect(try ...)
                group.addTask { try await runner(queue, owner: "survivor", handlers: ["work": handler]).run() }
                #expect(try await eventually(timeout: .seconds(10)) { log.count == 1 })
                #expect(
                    try await eventually { try await database.scalar("SELECT count(*) FROM jobs", as: Int64.self) == 0 }
                )
                group.cancelAll()
            }
            let run = try #require(log.all.first)
            #expect(run.jobID == id)
            #expect(run.attempt == 2)
            #expect(run.at - started >= .milliseconds(500))  // not before the lease ran out
        }
    }

    @Test func aLiveRunnerKeepsItsLeaseWhileWorking() async throws {
        try await withTestDatabase { database in
            let queue = PostgresJobQueue(database: database)
            _ = try await queue.enqueue([JobRequest(kind: "slow", appID: 1)])
            let log = RunLog()
            let slow = ClosureJobHandler { job, _ in
                log.record(job, owner: "a")
                try await Task.sleep(for: .milliseconds(2500))
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                try Task.checkCancellation()  // makes the closure throwing for #expect(try ...)
                group.addTask {
                    try await runner(queue, owner: "a", handlers: ["slow": slow], lease: .seconds(1)).run()
                }
                group.addTask {
                    try await runner(queue, owner: "b", handlers: ["slow": slow], lease: .seconds(1)).run()
                }
                #expect(
                    try await eventually { try await database.scalar("SELECT count(*) FROM jobs", as: Int64.self) == 0 }
                )
                group.cancelAll()
            }
            // The heartbeat extended the 1 s lease through a 2.5 s run: nobody else ran it.
            #expect(log.count == 1)
        }
    }
}
