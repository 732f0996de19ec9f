import Foundation
import JobQueue
import Metrics
import PostgresDatabase
import Synchronization
import Testing

/// With an express lane, the runner's loop and its non-bulk jobs run on the lane's thread: a short job is claimed
/// and run while bulk jobs keep every thread of the global pool busy.
@Suite struct JobRunnerExpressLaneTests {
    /// What the handlers saw: when each ran, and on which lane.
    struct Sightings: Sendable {
        var quickAt: Date?
        var quickOnLane: Bool?
        var bulkEnds: [Date] = []
        var bulkOnLane: [Bool] = []
    }

    @Test func aShortJobRunsWhileBulkJobsHoldTheGlobalPool() async throws {
        try await withTestDatabaseURL { database, url in
            let lane = ExpressLane(url: url, maxConnections: 2, logger: TestEnvironment.quietLogger)
            let queue = PostgresJobQueue(database: lane.database)
            let seen = Mutex(Sightings())
            // More bulk jobs than the pool has threads; each spins without suspending, as a CPU-bound chunk would.
            let bulkCount = ProcessInfo.processInfo.processorCount + 1
            let bulk = ClosureJobHandler { _, _ in
                let onLane = lane.eventLoop.inEventLoop
                let end = Date().addingTimeInterval(1.5)
                while Date() < end {}
                seen.withLock {
                    $0.bulkEnds.append(Date())
                    $0.bulkOnLane.append(onLane)
                }
            }
            let quick = ClosureJobHandler { _, _ in
                let onLane = lane.eventLoop.inEventLoop
                seen.withLock {
                    $0.quickAt = Date()
                    $0.quickOnLane = onLane
                }
            }
            var configuration = JobRunnerConfiguration(
                owner: "w", concurrency: bulkCount + 2, lease: .seconds(30), pollInterval: .milliseconds(200))
            configuration.express = lane.executor
            configuration.bulkKinds = ["bulk"]
            let runner = JobRunner(
                queue: queue, wakeups: queue, handlers: ["bulk": bulk, "quick": quick], configuration: configuration,
                metrics: NOOPMetricsHandler.instance, logger: TestEnvironment.quietLogger)
            try await withThrowingTaskGroup(of: Void.self) { group async throws -> Void in
                group.addTask { try await lane.run() }
                _ = try await queue.enqueue((0..<bulkCount).map { _ in JobRequest(kind: "bulk", appID: 1) })
                group.addTask { try await runner.run() }
                // The short job arrives while the bulk jobs spin. It is enqueued from the lane's own thread (a NIO
                // timer, then the lane's pool), since nothing on the global pool can run until the bulk jobs end.
                lane.eventLoop.scheduleTask(in: .milliseconds(400)) {
                    Task(executorPreference: lane.executor) {
                        _ = try await queue.enqueue([JobRequest(kind: "quick", appID: 2)])
                    }
                }
                #expect(
                    try await eventually(timeout: .seconds(20)) {
                        try await database.scalar("SELECT count(*) FROM jobs", as: Int64.self) == 0
                    })
                group.cancelAll()
            }
            let sightings = seen.withLock { $0 }
            #expect(sightings.bulkEnds.count == bulkCount)
            #expect(sightings.bulkOnLane.allSatisfy { !$0 }, "bulk jobs ran on the express lane")
            #expect(sightings.quickOnLane == true)
            let quickAt = try #require(sightings.quickAt)
            let firstBulkEnd = try #require(sightings.bulkEnds.min())
            #expect(quickAt < firstBulkEnd, "the short job waited for the bulk jobs to release the pool")
        }
    }
}
