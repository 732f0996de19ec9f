import Foundation
import JobQueue
import LiveActivitiesCore
import Logging
import Metrics
import NIOConcurrencyHelpers
import PostgresDatabase
import PostgresNIO

/// Records every run of every job: which job, which attempt, when.
final class RunLog: Sendable {
    struct Run: Sendable {
        var jobID: Int64
        var attempt: Int
        var owner: String
        var at: ContinuousClock.Instant
    }

    private let runs = NIOLockedValueBox<[Run]>([])

    func record(_ job: ClaimedJob, owner: String) {
        self.runs.withLockedValue { $0.append(Run(jobID: job.id, attempt: job.attempt, owner: owner, at: .now)) }
    }

    var all: [Run] { self.runs.withLockedValue { $0 } }
    var count: Int { self.runs.withLockedValue { $0.count } }
}

func runner(
    _ queue: PostgresJobQueue, owner: String, handlers: [JobKind: any JobHandler], concurrency: Int = 16,
    lease: Duration = .seconds(30), poll: Duration = .milliseconds(200), backoff: Backoff = Backoff(),
    wakeups: Bool = true, kindLimits: [JobKind: Int] = [:]
) -> JobRunner {
    var configuration = JobRunnerConfiguration(
        owner: owner, concurrency: concurrency, lease: lease, pollInterval: poll, backoff: backoff)
    configuration.kindLimits = kindLimits
    return JobRunner(
        queue: queue,
        wakeups: wakeups ? queue : nil,
        handlers: handlers,
        configuration: configuration,
        metrics: NOOPMetricsHandler.instance,
        logger: TestEnvironment.quietLogger
    )
}
