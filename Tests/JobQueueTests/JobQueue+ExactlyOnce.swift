import Foundation
import JobQueue
import PostgresDatabase
import Testing

@Suite struct JobQueueExactlyOnceTests {
    @Test func tenThousandJobsAcrossFourRunnersEachRunExactlyOnce() async throws {
        try await withTestDatabase(maxConnections: 30) { database in
            let queue = PostgresJobQueue(database: database)
            let jobs = (0..<10_000).map {
                JobRequest(kind: "count", appID: Int64($0 % 7 + 1), payload: "{\"n\":\($0)}")
            }
            let ids = try await queue.enqueue(jobs)
            #expect(ids.count == 10_000)

            let log = RunLog()
            try await withThrowingTaskGroup(of: Void.self) { group in
                try Task.checkCancellation()  // makes the closure throwing for #expect(try ...)
                for index in 0..<4 {
                    let owner = "claimer-\(index)"
                    let handler = ClosureJobHandler { job, _ in log.record(job, owner: owner) }
                    group.addTask {
                        try await runner(queue, owner: owner, handlers: ["count": handler], concurrency: 64).run()
                    }
                }
                let drained = try await eventually(timeout: .seconds(120)) {
                    try await database.scalar("SELECT count(*) FROM jobs", as: Int64.self) == 0
                }
                group.cancelAll()
                #expect(drained)
            }

            let runs = log.all
            let perJob = Dictionary(grouping: runs, by: \.jobID).mapValues(\.count)
            #expect(runs.count == 10_000)
            #expect(Set(perJob.keys) == Set(ids))
            #expect(perJob.values.allSatisfy { $0 == 1 })
            // All four claimers took part.
            #expect(Set(runs.map(\.owner)).count == 4)
        }
    }
}
