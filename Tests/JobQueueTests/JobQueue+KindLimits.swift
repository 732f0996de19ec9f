import Foundation
import JobQueue
import PostgresDatabase
import ServiceLifecycle
import Synchronization
import Testing

@Suite struct JobQueueKindLimitTests {
    /// A runner of 4 slots with `slow` capped at 2: a backlog of slow jobs never takes the last two slots, so a
    /// job of another kind queued behind it starts at once.
    @Test func aCappedKindLeavesSlotsForOtherWork() async throws {
        try await withTestDatabase { database in
            let queue = PostgresJobQueue(database: database)
            let running = Mutex((now: 0, most: 0))
            let fastStarted = Mutex<ContinuousClock.Instant?>(nil)
            let slow = ClosureJobHandler { _, _ in
                running.withLock {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                }
                try await Task.sleep(for: .milliseconds(800))
                running.withLock { $0.now -= 1 }
            }
            let fast = ClosureJobHandler { _, _ in fastStarted.withLock { $0 = .now } }
            _ = try await queue.enqueue((0..<8).map { _ in JobRequest(kind: "slow", appID: 1) })
            let worker = runner(
                queue, owner: "w", handlers: ["slow": slow, "fast": fast], concurrency: 4, kindLimits: ["slow": 2])
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await worker.run() }
                // The backlog holds its two slots before the fast job is queued.
                #expect(try await eventually(timeout: .seconds(5)) { running.withLock { $0.now } == 2 })
                let queued = ContinuousClock.now
                _ = try await queue.enqueue([JobRequest(kind: "fast", appID: 1)])
                #expect(try await eventually(timeout: .seconds(5)) { fastStarted.withLock { $0 != nil } })
                let waited = fastStarted.withLock { $0! } - queued
                // Without the cap all four slots would hold 800 ms jobs; with it the fast job needs no free slot.
                #expect(waited < .milliseconds(400), "the fast job waited \(waited)")
                #expect(
                    try await eventually(timeout: .seconds(10)) {
                        try await database.scalar("SELECT count(*) FROM jobs", as: Int64.self) == 0
                    })
                #expect(running.withLock { $0.most } == 2)
                group.cancelAll()
            }
        }
    }
}
