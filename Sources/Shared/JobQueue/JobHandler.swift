import LiveActivitiesCore
import Logging
import PostgresDatabase

/// Runs one kind of job. Throwing retries the job with backoff; `JobError.permanent` dead-letters it at once.
public protocol JobHandler: Sendable {
    func run(_ job: ClaimedJob, logger: Logger) async throws
}

public enum JobError: Error, Sendable {
    /// Do not retry: the job can never succeed (bad payload, deleted app).
    case permanent(String)
    /// The job stopped at a safe point because the worker is shutting down (its progress is saved): it runs again
    /// at once, elsewhere, and this attempt is not counted.
    case interrupted
}

/// A handler made from a closure, for small jobs and tests.
public struct ClosureJobHandler: JobHandler {
    let body: @Sendable (ClaimedJob, Logger) async throws -> Void

    public init(_ body: @escaping @Sendable (ClaimedJob, Logger) async throws -> Void) {
        self.body = body
    }

    public func run(_ job: ClaimedJob, logger: Logger) async throws {
        try await self.body(job, logger)
    }
}

/// Where wake-ups come from: Postgres `LISTEN jobs_ready` in production.
public protocol JobWakeups: Sendable {
    /// Calls `onWake` for every notification until cancelled; throws when the connection is lost.
    func listen(onWake: @escaping @Sendable () async -> Void) async throws
}

extension PostgresJobQueue: JobWakeups {
    public func listen(onWake: @escaping @Sendable () async -> Void) async throws {
        try await self.database.client.withConnection { connection in
            try await connection.listen(on: "jobs_ready") { notifications in
                for try await _ in notifications { await onWake() }
            }
        }
    }
}
