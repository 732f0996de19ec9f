import Foundation
import LiveActivitiesCore
import Logging
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
        let rows = try await connection.query(
            """
            INSERT INTO jobs (kind, app_id, payload, priority, run_at, max_attempts, dedupe_key)
            SELECT kind, app_id, payload::jsonb, priority, run_at, max_attempts, nullif(dedupe_key, '')
            FROM unnest(\(jobs.map(\.kind))::text[], \(jobs.map(\.appID))::int8[], \(jobs.map(\.payload))::text[],
                        \(jobs.map(\.priority))::int2[], \(jobs.map { $0.runAt ?? now })::timestamptz[],
                        \(jobs.map(\.maxAttempts))::int4[], \(jobs.map { $0.dedupeKey ?? "" })::text[])
                AS j(kind, app_id, payload, priority, run_at, max_attempts, dedupe_key)
            ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL AND state <> 'dead' DO NOTHING
            RETURNING id
            """,
            logger: logger
        )
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
        // 1. due_apps: the apps with due work, found with a loose index scan (one probe per app).
        // 2. candidates: up to `limit` due jobs of each app, locked, skipping those other claimers hold,
        //    numbered per app so that 3. the first pick of every app comes before any app's second, and among
        //    first picks, apps the claimer is not busy with go first (a claim of one slot, freed by a busy app's
        //    job, goes to an app waiting with none running rather than to the older job of the busy app).
        let rows = try await self.database.client.query(
            """
            WITH RECURSIVE due_apps(app_id) AS (
                (SELECT app_id FROM jobs
                 WHERE state IN ('queued', 'running') AND run_at <= now() AND kind <> ALL(\(excluded)::text[])
                 ORDER BY app_id LIMIT 1)
                UNION ALL
                SELECT (SELECT j.app_id FROM jobs j
                        WHERE j.state IN ('queued', 'running') AND j.run_at <= now() AND j.app_id > d.app_id
                          AND j.kind <> ALL(\(excluded)::text[])
                        ORDER BY j.app_id LIMIT 1)
                FROM due_apps d WHERE d.app_id IS NOT NULL
            ),
            candidates AS (
                SELECT c.id, c.priority, c.run_at,
                       row_number() OVER (PARTITION BY c.app_id ORDER BY c.priority DESC, c.run_at, c.id) AS turn,
                       c.app_id = ANY(\(busyApps)::int8[]) AS busy
                FROM due_apps d
                CROSS JOIN LATERAL (
                    SELECT j.id, j.app_id, j.priority, j.run_at FROM jobs j
                    WHERE j.app_id = d.app_id AND j.state IN ('queued', 'running') AND j.run_at <= now()
                      AND j.kind <> ALL(\(excluded)::text[]) AND j.id <> ALL(\(inFlight)::int8[])
                    ORDER BY j.priority DESC, j.run_at, j.id
                    LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED
                ) c
                WHERE d.app_id IS NOT NULL
            ),
            picked AS (
                SELECT id FROM candidates ORDER BY turn, busy, priority DESC, run_at, id LIMIT \(limit)
            )
            UPDATE jobs j
            SET state = 'running', attempts = j.attempts + 1, lease_owner = \(owner),
                run_at = now() + make_interval(secs => \(lease.seconds)), updated_at = now()
            FROM picked
            WHERE j.id = picked.id
            RETURNING j.id, j.kind, j.app_id, j.payload::text, j.attempts, j.max_attempts
            """,
            logger: self.logger
        )
        var jobs: [ClaimedJob] = []
        for try await (id, kind, appID, payload, attempts, maxAttempts) in rows.decode(
            (Int64, JobKind, Int64, String, Int32, Int32).self
        ) {
            jobs.append(
                ClaimedJob(
                    id: id, kind: kind, appID: appID, payload: payload, attempt: Int(attempts),
                    maxAttempts: Int(maxAttempts)))
        }
        return jobs
    }

    public func extendLease(ids: [Int64], owner: String, lease: Duration) async throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        let rows = try await self.database.client.query(
            """
            UPDATE jobs SET run_at = now() + make_interval(secs => \(lease.seconds)), updated_at = now()
            WHERE id = ANY(\(ids)) AND lease_owner = \(owner) AND state = 'running'
            RETURNING id
            """,
            logger: self.logger
        )
        var kept: [Int64] = []
        for try await id in rows.decode(Int64.self) { kept.append(id) }
        return kept
    }

    public func complete(ids: [Int64], owner: String) async throws {
        guard !ids.isEmpty else { return }
        try await self.database.client.query(
            "DELETE FROM jobs WHERE id = ANY(\(ids)) AND lease_owner = \(owner) AND state = 'running'",
            logger: self.logger
        )
    }

    public func fail(_ failures: [JobFailure], owner: String) async throws -> [Int64: JobFailureOutcome] {
        guard !failures.isEmpty else { return [:] }
        let ids = failures.map(\.jobID)
        // A negative delay means "do not retry": the job is dead-lettered at once.
        let delays = failures.map { $0.retryAfter?.seconds ?? -1 }
        let errors = failures.map { String($0.error.prefix(2000)) }
        let back = failures.map(\.givesBackAttempt)
        let rows = try await self.database.client.query(
            """
            UPDATE jobs j
            SET state = CASE WHEN f.back THEN 'queued'
                             WHEN f.delay < 0 OR j.attempts >= j.max_attempts THEN 'dead' ELSE 'queued' END,
                attempts = CASE WHEN f.back THEN j.attempts - 1 ELSE j.attempts END,
                run_at = now() + make_interval(secs => greatest(f.delay, 0)),
                last_error = f.error, lease_owner = NULL, updated_at = now()
            FROM unnest(\(ids)::int8[], \(delays)::float8[], \(errors)::text[], \(back)::bool[])
                AS f(id, delay, error, back)
            WHERE j.id = f.id AND j.lease_owner = \(owner) AND j.state = 'running'
            RETURNING j.id, j.state
            """,
            logger: self.logger
        )
        var outcomes: [Int64: JobFailureOutcome] = [:]
        for try await (id, state) in rows.decode((Int64, String).self) {
            outcomes[id] = state == "dead" ? .dead : .retried
        }
        return outcomes
    }

    public func nextDueDate(excludingKinds excluded: [JobKind] = []) async throws -> Date? {
        let rows = try await self.database.client.query(
            "SELECT min(run_at) FROM jobs WHERE state IN ('queued', 'running') AND kind <> ALL(\(excluded)::text[])",
            logger: self.logger
        )
        for try await date in rows.decode(Date?.self) { return date }
        return nil
    }

    public func buryAbandoned() async throws -> Int {
        let rows = try await self.database.client.query(
            """
            UPDATE jobs SET state = 'dead', lease_owner = NULL, updated_at = now(),
                last_error = 'lease expired on the last attempt (the worker stopped or crashed)'
            WHERE state = 'running' AND run_at <= now() AND attempts >= max_attempts
            RETURNING id
            """,
            logger: self.logger
        )
        var count = 0
        for try await _ in rows.decode(Int64.self) { count += 1 }
        return count
    }
}
