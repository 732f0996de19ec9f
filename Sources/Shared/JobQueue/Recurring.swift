import Foundation
import LiveActivitiesCore
import Logging
import PostgresDatabase
import PostgresNIO

/// Recurring maintenance: each run is a job whose dedupe key names its time slot; a run queues the next slot, and
/// a worker starting up queues the current one, so any number of workers keep exactly one run per slot queued.
public enum Recurring {
    public static func scheduleNext(kind: JobKind, every interval: Duration, after date: Date, database: Database)
        async throws
    {
        let milliseconds = max(1, Int(interval.seconds * 1000))
        let slot = Int(date.timeIntervalSince1970 * 1000) / milliseconds + 1
        _ = try await PostgresJobQueue(database: database).enqueue([
            JobRequest(
                kind: kind, appID: 0, runAt: Date(timeIntervalSince1970: TimeInterval(slot * milliseconds) / 1000),
                priority: -1, maxAttempts: 3, dedupeKey: "\(kind)@\(slot)")
        ])
    }
}

/// A job that runs on a clock. The worker registers every one in the `recurring` list of `DeliveryJobs.handlers` and
/// queues its current slot at start-up; each run queues the next (`scheduleNext`). Adding a recurring job is writing
/// its handler and one line in that list.
public protocol RecurringJob: JobHandler {
    static var kind: JobKind { get }
    /// How often it runs.
    var interval: Duration { get }
    /// Where its runs are queued.
    var queue: Database { get }
}

extension RecurringJob {
    /// Makes sure the run of the slot after `date` is queued (idempotent across workers).
    public func scheduleNext(after date: Date = Date()) async throws {
        try await Recurring.scheduleNext(kind: Self.kind, every: self.interval, after: date, database: self.queue)
    }
}
