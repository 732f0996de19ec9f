import Foundation
import JobQueue
import PostgresDatabase
import Testing

@Suite struct JobQueueWakeupTests {
    @Test func anIdleRunnerStartsADueJobWithinMillisecondsThroughNotify() async throws {
        try await withTestDatabase { database in
            let queue = PostgresJobQueue(database: database)
            let log = RunLog()
            let handler = ClosureJobHandler { job, _ in log.record(job, owner: "idle") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                try Task.checkCancellation()  // makes the closure throwing for #expect(try ...)
                // The fallback poll is a minute: only LISTEN/NOTIFY can wake this runner in time.
                group.addTask {
                    try await runner(queue, owner: "idle", handlers: ["now": handler], poll: .seconds(60)).run()
                }
                // It listens (its LISTEN is on a connection of this database), claims nothing and sleeps.
                #expect(
                    try await eventually(timeout: .seconds(10)) {
                        try await database.scalar(
                            """
                            SELECT count(*) FROM pg_stat_activity
                            WHERE datname = current_database() AND query LIKE 'LISTEN%'
                            """, as: Int64.self) >= 1
                    })

                var latencies: [Duration] = []
                for round in 1...5 {
                    let enqueued = ContinuousClock.now
                    _ = try await queue.enqueue([JobRequest(kind: "now", appID: 1)])
                    #expect(try await eventually(timeout: .seconds(5)) { log.count == round })
                    latencies.append(log.all[round - 1].at - enqueued)
                    // Not a wait for an event: a runner still awake claims the job itself (as fast); the pause lets
                    // it fall asleep again so that the next round measures NOTIFY.
                    try await Task.sleep(for: .milliseconds(100))
                }
                group.cancelAll()
                print("enqueue -> run latencies via NOTIFY: \(latencies)")
                #expect(latencies.allSatisfy { $0 < .milliseconds(500) })
            }
        }
    }
}
