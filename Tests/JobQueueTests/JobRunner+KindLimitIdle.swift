import Foundation
import JobQueue
import Metrics
import PostgresDatabase
import Synchronization
import Testing

/// While a kind is at its limit and more of it is due, the runner waits for a job to finish (or the poll interval)
/// instead of claiming again and again: those claims could only come back empty.
@Suite struct JobRunnerKindLimitIdleTests {
    /// The real queue, with its claims counted.
    final class CountingQueue: JobQueue {
        let queue: PostgresJobQueue
        let claims = Atomic<Int>(0)

        init(queue: PostgresJobQueue) { self.queue = queue }

        func enqueue(_ jobs: [JobRequest]) async throws -> [Int64] { try await self.queue.enqueue(jobs) }

        func claim(limit: Int, owner: String, lease: Duration, excludingKinds: [JobKind]) async throws -> [ClaimedJob] {
            self.claims.add(1, ordering: .relaxed)
            return try await self.queue.claim(limit: limit, owner: owner, lease: lease, excludingKinds: excludingKinds)
        }

        func extendLease(ids: [Int64], owner: String, lease: Duration) async throws -> [Int64] {
            try await self.queue.extendLease(ids: ids, owner: owner, lease: lease)
        }

        func complete(ids: [Int64], owner: String) async throws {
            try await self.queue.complete(ids: ids, owner: owner)
        }

        func fail(_ failures: [JobFailure], owner: String) async throws -> [Int64: JobFailureOutcome] {
            try await self.queue.fail(failures, owner: owner)
        }

        func nextDueDate(excludingKinds: [JobKind]) async throws -> Date? {
            try await self.queue.nextDueDate(excludingKinds: excludingKinds)
        }

        func buryAbandoned() async throws -> Int { try await self.queue.buryAbandoned() }
    }

    @Test func aKindAtItsLimitDoesNotSpinTheClaimLoop() async throws {
        try await withTestDatabase { database in
            let queue = CountingQueue(queue: PostgresJobQueue(database: database))
            let started = Atomic<Int>(0)
            let slow = ClosureJobHandler { _, _ in
                started.add(1, ordering: .relaxed)
                try await Task.sleep(for: .milliseconds(1500))  // the work: a slot held for 1.5 s
            }
            _ = try await queue.enqueue((0..<4).map { _ in JobRequest(kind: "slow", appID: 1) })
            var configuration = JobRunnerConfiguration(
                owner: "w", concurrency: 4, lease: .seconds(30), pollInterval: .milliseconds(250))
            configuration.kindLimits = ["slow": 2]
            let worker = JobRunner(
                queue: queue, wakeups: queue.queue, handlers: ["slow": slow], configuration: configuration,
                metrics: NOOPMetricsHandler.instance, logger: TestEnvironment.quietLogger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await worker.run() }
                // Two slow jobs run, two are due and wait for a slot of their kind.
                #expect(try await eventually(timeout: .seconds(5)) { started.load(ordering: .relaxed) == 2 })
                let before = queue.claims.load(ordering: .relaxed)
                try await Task.sleep(for: .milliseconds(1000))  // the window whose claims are counted
                let during = queue.claims.load(ordering: .relaxed) - before
                // One claim per poll interval (4 in that second), not one per round trip (hundreds).
                #expect(during <= 8, "\(during) claims in one second while the kind was at its limit")
                #expect(
                    try await eventually(timeout: .seconds(10)) {
                        try await database.scalar("SELECT count(*) FROM jobs", as: Int64.self) == 0
                    })
                group.cancelAll()
            }
        }
    }
}
