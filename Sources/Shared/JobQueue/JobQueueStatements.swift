import Foundation
import LiveActivitiesCore
import PostgresDatabase
import PostgresNIO

/// The job queue's statements (`PostgresJobQueue`, `QueueDepthGauges`).
package enum JobQueueStatements {
    package static let all: [any NamedStatement.Type] = [
        Enqueue.self, Claim.self, ExtendLease.self, Complete.self, Fail.self, NextDue.self, BuryAbandoned.self,
        Depth.self,
    ]

    /// Inserts jobs, one per element of the arrays: kinds, app ids, payloads (JSON text), priorities, run times,
    /// attempt limits and dedupe keys ('' for none). A live job with the same key makes its insert do nothing.
    /// Returns the ids inserted.
    enum Enqueue: NamedStatement {
        static let name = "lagw_jobs_enqueue"
        static let sql = """
            INSERT INTO jobs (kind, app_id, payload, priority, run_at, max_attempts, dedupe_key)
            SELECT kind, app_id, payload::jsonb, priority, run_at, max_attempts, nullif(dedupe_key, '')
            FROM unnest($1::text[], $2::int8[], $3::text[], $4::int2[], $5::timestamptz[], $6::int4[], $7::text[])
                AS j(kind, app_id, payload, priority, run_at, max_attempts, dedupe_key)
            ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL AND state <> 'dead' DO NOTHING
            RETURNING id
            """
    }

    /// Leases up to `$4` due jobs to owner `$5` for `$6` seconds: kinds `$1` left out, the claimer's busy apps `$2`
    /// served after the others, its own running jobs `$3` never claimed again.
    ///
    /// 1. due_apps: the apps with due work, found with a loose index scan (one probe per app).
    /// 2. candidates: up to `$4` due jobs of each app, locked, skipping those other claimers hold, numbered per app so
    ///    that 3. the first pick of every app comes before any app's second, and among first picks, apps the claimer
    ///    is not busy with go first (a claim of one slot, freed by a busy app's job, goes to an app waiting with none
    ///    running rather than to the older job of the busy app).
    enum Claim: NamedStatement {
        static let name = "lagw_jobs_claim"
        static let sql = """
            WITH RECURSIVE due_apps(app_id) AS (
                (SELECT app_id FROM jobs
                 WHERE state IN ('queued', 'running') AND run_at <= now() AND kind <> ALL($1::text[])
                 ORDER BY app_id LIMIT 1)
                UNION ALL
                SELECT (SELECT j.app_id FROM jobs j
                        WHERE j.state IN ('queued', 'running') AND j.run_at <= now() AND j.app_id > d.app_id
                          AND j.kind <> ALL($1::text[])
                        ORDER BY j.app_id LIMIT 1)
                FROM due_apps d WHERE d.app_id IS NOT NULL
            ),
            candidates AS (
                SELECT c.id, c.priority, c.run_at,
                       row_number() OVER (PARTITION BY c.app_id ORDER BY c.priority DESC, c.run_at, c.id) AS turn,
                       c.app_id = ANY($2::int8[]) AS busy
                FROM due_apps d
                CROSS JOIN LATERAL (
                    SELECT j.id, j.app_id, j.priority, j.run_at FROM jobs j
                    WHERE j.app_id = d.app_id AND j.state IN ('queued', 'running') AND j.run_at <= now()
                      AND j.kind <> ALL($1::text[]) AND j.id <> ALL($3::int8[])
                    ORDER BY j.priority DESC, j.run_at, j.id
                    LIMIT $4
                    FOR UPDATE SKIP LOCKED
                ) c
                WHERE d.app_id IS NOT NULL
            ),
            picked AS (
                SELECT id FROM candidates ORDER BY turn, busy, priority DESC, run_at, id LIMIT $4
            )
            UPDATE jobs j
            SET state = 'running', attempts = j.attempts + 1, lease_owner = $5,
                run_at = now() + make_interval(secs => $6), updated_at = now()
            FROM picked
            WHERE j.id = picked.id
            RETURNING j.id, j.kind, j.app_id, j.payload::text, j.attempts, j.max_attempts
            """
    }

    /// Extends owner `$2`'s leases of jobs `$1` by `$3` seconds; returns the ids it still held.
    enum ExtendLease: NamedStatement {
        static let name = "lagw_jobs_extend_lease"
        static let sql = """
            UPDATE jobs SET run_at = now() + make_interval(secs => $3), updated_at = now()
            WHERE id = ANY($1::int8[]) AND lease_owner = $2 AND state = 'running'
            RETURNING id
            """
    }

    /// Deletes the finished jobs `$1` owner `$2` still held.
    enum Complete: NamedStatement {
        static let name = "lagw_jobs_complete"
        static let sql = "DELETE FROM jobs WHERE id = ANY($1::int8[]) AND lease_owner = $2 AND state = 'running'"
    }

    /// Records failures of owner `$5`'s jobs, one per element: ids `$1`, retry delays `$2` in seconds (negative: no
    /// retry, dead at once), errors `$3`, and `$4` whether the attempt is given back (an interruption). Returns each
    /// job's new state.
    enum Fail: NamedStatement {
        static let name = "lagw_jobs_fail"
        static let sql = """
            UPDATE jobs j
            SET state = CASE WHEN f.back THEN 'queued'
                             WHEN f.delay < 0 OR j.attempts >= j.max_attempts THEN 'dead' ELSE 'queued' END,
                attempts = CASE WHEN f.back THEN j.attempts - 1 ELSE j.attempts END,
                run_at = now() + make_interval(secs => greatest(f.delay, 0)),
                last_error = f.error, lease_owner = NULL, updated_at = now()
            FROM unnest($1::int8[], $2::float8[], $3::text[], $4::bool[]) AS f(id, delay, error, back)
            WHERE j.id = f.id AND j.lease_owner = $5 AND j.state = 'running'
            RETURNING j.id, j.state
            """

        struct Row {
            var id: Int64
            var isDead: Bool

            init(_ row: PostgresRow) throws {
                let (id, state) = try row.decode((Int64, String).self)
                self.id = id
                self.isDead = state == "dead"
            }
        }
    }

    /// When the next job not of kinds `$1` is due (or its lease runs out); NULL when there is none.
    enum NextDue: NamedStatement {
        static let name = "lagw_jobs_next_due"
        static let sql = """
            SELECT min(run_at) FROM jobs WHERE state IN ('queued', 'running') AND kind <> ALL($1::text[])
            """
    }

    /// Dead-letters running jobs whose lease ran out on their last attempt; returns their ids.
    enum BuryAbandoned: NamedStatement {
        static let name = "lagw_jobs_bury_abandoned"
        static let sql = """
            UPDATE jobs SET state = 'dead', lease_owner = NULL, updated_at = now(),
                last_error = 'lease expired on the last attempt (the worker stopped or crashed)'
            WHERE state = 'running' AND run_at <= now() AND attempts >= max_attempts
            RETURNING id
            """
    }

    /// The number of jobs of each kind in each state.
    enum Depth: NamedStatement {
        static let name = "lagw_jobs_depth"
        static let sql = "SELECT kind, state, count(*) FROM jobs GROUP BY kind, state"

        struct Row {
            var kind: String
            var state: String
            var count: Int64

            init(_ row: PostgresRow) throws {
                (self.kind, self.state, self.count) = try row.decode((String, String, Int64).self)
            }
        }
    }
}

extension ClaimedJob {
    /// A row of `JobQueueStatements.Claim`.
    init(claimed row: PostgresRow) throws {
        let (id, kind, appID, payload, attempts, maxAttempts) = try row.decode(
            (Int64, JobKind, Int64, String, Int32, Int32).self)
        self.init(
            id: id, kind: kind, appID: appID, payload: payload, attempt: Int(attempts), maxAttempts: Int(maxAttempts))
    }
}
