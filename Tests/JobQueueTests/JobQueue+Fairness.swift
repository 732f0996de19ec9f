import Foundation
import JobQueue
import PostgresDatabase
import Testing

@Suite struct JobQueueFairnessTests {
    @Test func claimsInterleaveAppsSoABigBacklogDoesNotStarveASmallOne() async throws {
        try await withTestDatabase { database in
            let queue = PostgresJobQueue(database: database)
            // App 1 has a big, older backlog; apps 2 and 3 add one job each afterwards.
            _ = try await queue.enqueue((0..<500).map { _ in JobRequest(kind: "fanout", appID: 1) })
            let small = try await queue.enqueue([
                JobRequest(kind: "update", appID: 2), JobRequest(kind: "update", appID: 3),
            ])

            let first = try await queue.claim(limit: 4, owner: "w", lease: .seconds(30))
            #expect(first.count == 4)
            #expect(Set(first.map(\.appID)) == [1, 2, 3])
            #expect(Set(small).isSubset(of: Set(first.map(\.id))))
        }
    }

    @Test func higherPriorityComesFirstWithinAnApp() async throws {
        try await withTestDatabase { database in
            let queue = PostgresJobQueue(database: database)
            _ = try await queue.enqueue((0..<10).map { _ in JobRequest(kind: "low", appID: 1) })
            let urgent = try await queue.enqueue([JobRequest(kind: "high", appID: 1, priority: 10)])
            let first = try await queue.claim(limit: 1, owner: "w", lease: .seconds(30))
            #expect(first.map(\.id) == urgent)
        }
    }

    @Test func futureJobsAreNotClaimedBeforeTheirTime() async throws {
        try await withTestDatabase { database in
            let queue = PostgresJobQueue(database: database)
            _ = try await queue.enqueue([JobRequest(kind: "later", appID: 1, runAt: Date().addingTimeInterval(3600))])
            #expect(try await queue.claim(limit: 10, owner: "w", lease: .seconds(30)).isEmpty)
            let next = try #require(try await queue.nextDueDate())
            #expect(next.timeIntervalSinceNow > 3500)
        }
    }
}
