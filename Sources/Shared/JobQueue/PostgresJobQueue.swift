import Foundation
import LiveActivitiesCore
import Logging
import PostgresDatabase
import PostgresNIO

/// The job queue in PostgreSQL: `FOR UPDATE SKIP LOCKED` claims with leases, fair across apps.
public struct PostgresJobQueue: JobQueue {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    private var logger: Logger { self.database.logger }

    public func enqueue(_ jobs: [JobRequest]) async throws -> [Int64] {
        try await self.database.client.withConnection { connection in
            try await Self.enqueue(jobs, on: connection, logger: self.logger)
        }
    }

    /// Enqueues inside the caller's transaction, so that a job exists exactly when the row it works on does.
    public static func enqueue(_ jobs: [JobRequest], on connection: DatabaseConnection, logger: Logger) async throws
        -> [Int64]
    {
        guard !jobs.isEmpty else { return [] }
        let now = Date()
        let enqueue = try JobQueueStatements.Enqueue.prepared(
            jobs.map(\.kind), jobs.map(\.appID), jobs.map(\.payload), jobs.map(\.priority),
            jobs.map { $0.runAt ?? now }, jobs.map(\.maxAttempts), jobs.map { $0.dedupeKey ?? "" })
        let rows = try await connection.execute(enqueue, logger: logger)
        var ids: [Int64] = []
        for try await id in rows.decode(Int64.self) { ids.append(id) }
        return ids
    }

    public func claim(limit: Int, owner: String, lease: Duration, excludingKinds excluded: [JobKind]) async throws
        -> [ClaimedJob]
    {
        try await self.claim(
            limit: limit, owner: owner, lease: lease, excludingKinds: excluded, busyApps: [], inFlight: [])
    }

    /// `inFlight`: the claimer's own running jobs, never claimed again by it while they run, even once their lease
    /// ran out (PostgreSQL out of reach): a second run of one job in the same process would share its lease owner,
    /// and the first run's completion would delete the job under the second.
    public func claim(
        limit: Int, owner: String, lease: Duration, excludingKinds excluded: [JobKind], busyApps: [Int64],
        inFlight: [Int64]
    ) async throws -> [ClaimedJob] {
        guard limit > 0 else { return [] }
        let claim = try JobQueueStatements.Claim.prepared(excluded, busyApps, inFlight, limit, owner, lease.seconds)
        let rows = try await self.database.client.execute(claim, logger: self.logger)
        return try rows.elements.map(ClaimedJob.init(claimed:))
    }

    public func extendLease(ids: [Int64], owner: String, lease: Duration) async throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        let rows = try await self.database.client.execute(
            JobQueueStatements.ExtendLease.prepared(ids, owner, lease.seconds), logger: self.logger)
        var kept: [Int64] = []
        for try await id in rows.decode(Int64.self) { kept.append(id) }
        return kept
    }

    public func complete(ids: [Int64], owner: String) async throws {
        guard !ids.isEmpty else { return }
        try await self.database.client.execute(
            JobQueueStatements.Complete.prepared(ids, owner), logger: self.logger)
    }

    public func fail(_ failures: [JobFailure], owner: String) async throws -> [Int64: JobFailureOutcome] {
        guard !failures.isEmpty else { return [:] }
        let ids = failures.map(\.jobID)
        // A negative delay means "do not retry": the job is dead-lettered at once.
        let delays = failures.map { $0.retryAfter?.seconds ?? -1 }
        let errors = failures.map { String($0.error.prefix(2000)) }
        let back = failures.map(\.givesBackAttempt)
        let rows = try await self.database.client.execute(
            JobQueueStatements.Fail.prepared(ids, delays, errors, back, owner), logger: self.logger)
        var outcomes: [Int64: JobFailureOutcome] = [:]
        for row in try rows.elements.map(JobQueueStatements.Fail.Row.init) {
            outcomes[row.id] = row.isDead ? .dead : .retried
        }
        return outcomes
    }

    public func nextDueDate(excludingKinds excluded: [JobKind] = []) async throws -> Date? {
        let rows = try await self.database.client.execute(
            JobQueueStatements.NextDue.prepared(excluded), logger: self.logger)
        for try await date in rows.decode(Date?.self) { return date }
        return nil
    }

    public func buryAbandoned() async throws -> Int {
        let rows = try await self.database.client.query(
            JobQueueStatements.BuryAbandoned.query(), logger: self.logger)
        var count = 0
        for try await _ in rows.decode(Int64.self) { count += 1 }
        return count
    }
}
