import Foundation
import PostgresNIO

/// The registry's statements (`PostgresActivityStore`). Prepared: `TrackStatement`, `TrackReplaceStatement`,
/// `ConfirmStartsStatement`, the channel lookup's summaries, and (`prepared(...)`) a push-to-start token's set and
/// delete, an activity's untrack, the reconcile after a relaunch, the serialized track's channel lock and an `end_at`
/// schedule's statements, which device calls run.
enum RegistryStatements {
    static let all: [any NamedStatement.Type] = [Self.own, RegistryMaintenanceStatements.all].flatMap { $0 }

    private static let own: [any NamedStatement.Type] = [
        TrackStatement.self, TrackReplaceStatement.self, ConfirmStartsStatement.self, ActivitySummariesStatement.self,
        PushToStartSummariesStatement.self, SetPushToStart.self, DeletePushToStart.self, LockChannel.self,
        Untrack.self, Reconcile.self, MoveEndSchedule.self, MoveEndScheduleJob.self, InsertEndSchedule.self,
    ]

    /// Registers push-to-start token `$3` for attributes type `$4` on channel `$1` of app `$2`, in one statement: the
    /// channel (scoped by app), the upsert, and whether anything changed. Every registration, even an unchanged one,
    /// clears a suspect token (`registered_again_at`). The time is the inserted row's `updated_at` (Citus runs no
    /// `now()` in `DO UPDATE SET`: "functions used in the DO UPDATE SET clause of INSERTs on distributed tables must
    /// be marked IMMUTABLE").
    enum SetPushToStart: NamedStatement {
        static let name = "lagw_push_to_start_set_v4"
        static let sql = """
            WITH ch AS (
                SELECT c.id, a.apns_environment FROM channels c JOIN apps a ON a.id = c.app_id
                WHERE c.id = $1::uuid AND c.app_id = $2::int8
            ), old AS (
                SELECT p.token = $3::text AND p.state = 'active' AND p.environment = ch.apns_environment AS same
                FROM push_to_start_tokens p JOIN ch ON p.channel_id = ch.id
                WHERE p.attributes_type = $4::text
            ), up AS (
                INSERT INTO push_to_start_tokens AS p
                    (channel_id, app_id, attributes_type, token, environment, contract_version, updated_at)
                SELECT id, $2::int8, $4::text, $3::text, apns_environment, $5::int4, now() FROM ch
                ON CONFLICT (channel_id, attributes_type, app_id) DO UPDATE
                SET token = excluded.token, environment = excluded.environment, state = 'active',
                    contract_version = excluded.contract_version,
                    invalid_reason = NULL, invalidated_at = NULL, registered_again_at = excluded.updated_at,
                    updated_at = CASE WHEN p.token <> excluded.token OR p.state <> 'active'
                                           OR p.environment <> excluded.environment THEN excluded.updated_at
                                      ELSE p.updated_at END
                RETURNING (xmax = 0) AS created
            )
            SELECT (SELECT count(*) FROM ch), (SELECT created FROM up), (SELECT same FROM old)
            """

        struct Row {
            var channelFound: Bool
            /// nil: nothing was written (no channel).
            var created: Bool?
            /// The token, its state and environment were already those (nil: there was none).
            var same: Bool?

            init(_ row: PostgresRow) throws {
                let (channels, created, same) = try row.decode((Int64, Bool?, Bool?).self)
                (self.channelFound, self.created, self.same) = (channels == 1, created, same)
            }
        }
    }

    /// Deletes the push-to-start token of attributes type `$3` on channel `$1` of app `$2`.
    enum DeletePushToStart: NamedStatement {
        static let name = "lagw_push_to_start_delete_v2"
        static let sql = """
            WITH ch AS (SELECT id FROM channels WHERE id = $1::uuid AND app_id = $2::int8),
            done AS (
                DELETE FROM push_to_start_tokens
                WHERE channel_id IN (SELECT id FROM ch) AND attributes_type = $3::text RETURNING 1
            )
            SELECT (SELECT count(*) FROM ch), (SELECT count(*) FROM done)
            """
    }

    /// Locks channel `$1` of app `$2` for the rest of the transaction (a serialized `track`).
    enum LockChannel: NamedStatement {
        static let name = "lagw_channel_lock_v2"
        static let sql = "SELECT 1 FROM channels WHERE id = $1::uuid AND app_id = $2::int8 FOR NO KEY UPDATE"
    }

    /// Ends (or records the dismissal of) activity `$3` on channel `$1` of app `$2`, in one statement. The instance:
    /// the current one under the name (with a system activity id `$5`, only if it is that one), or for a dismissal
    /// (`$6`) with an id, that instance once it has ended. An `at` (`$4`) before it started is taken as its start: a
    /// device's clock may lag the gateway's, and its end is not lost for that. A concurrent end of the same instance
    /// counts once: the update re-checks the state it read.
    enum Untrack: NamedStatement {
        static let name = "lagw_activity_untrack_v3"
        static let sql = """
            WITH ch AS (SELECT id FROM channels WHERE id = $1::uuid AND app_id = $2::int8),
            clock AS (SELECT now() AS now),
            target AS (
                SELECT la.id, la.state IN ('active', 'invalid') AS current, la.dismissed_at IS NOT NULL AS was_dismissed,
                       greatest(coalesce($4::timestamptz, now()), la.started_at) AS at
                FROM live_activities la
                WHERE la.channel_id IN (SELECT id FROM ch) AND la.app_id = $2::int8 AND la.name = $3::text
                  AND CASE WHEN $5::text IS NULL THEN la.state IN ('active', 'invalid')
                           ELSE la.system_activity_id = $5::text
                                AND (la.state IN ('active', 'invalid') OR $6::bool) END
                ORDER BY la.state IN ('active', 'invalid') DESC, la.id DESC
                LIMIT 1
            ),
            done AS (
                UPDATE live_activities la
                SET state = CASE WHEN t.current THEN 'ended' ELSE la.state END,
                    ended_reason = CASE WHEN t.current THEN 'untracked' ELSE la.ended_reason END,
                    ended_at = CASE WHEN t.current THEN k.now ELSE la.ended_at END,
                    device_ended_at = CASE WHEN t.current THEN t.at ELSE la.device_ended_at END,
                    dismissed_at = CASE WHEN $6::bool THEN coalesce(la.dismissed_at, t.at) ELSE la.dismissed_at END
                FROM target t, clock k
                WHERE la.id = t.id AND la.app_id = $2::int8 AND (la.state IN ('active', 'invalid')) = t.current
                  AND (t.current OR NOT t.was_dismissed)
                RETURNING t.current
            )
            SELECT (SELECT count(*) FROM ch), (SELECT count(*) FROM done WHERE current), (SELECT count(*) FROM done),
                   coalesce((SELECT was_dismissed AND NOT current FROM target), false)
            """

        struct Row {
            var channelFound: Bool
            var ended: Int
            var changed: Int
            /// The instance had ended and its dismissal was already recorded.
            var alreadyDismissed: Bool

            init(_ row: PostgresRow) throws {
                let (channels, ended, changed, already) = try row.decode((Int64, Int64, Int64, Bool).self)
                (self.channelFound, self.ended, self.changed) = (channels == 1, Int(ended), Int(changed))
                self.alreadyDismissed = already
            }
        }
    }

    /// Ends the current activities of channel `$1` of app `$2` whose system activity ids are not in `$3`, of the
    /// attributes types `$4` (NULL: of every type).
    enum Reconcile: NamedStatement {
        static let name = "lagw_activity_reconcile_v2"
        static let sql = """
            WITH ch AS (SELECT id FROM channels WHERE id = $1::uuid AND app_id = $2::int8),
            done AS (
                UPDATE live_activities SET state = 'ended', ended_reason = 'reconciled', ended_at = now()
                WHERE channel_id IN (SELECT id FROM ch) AND state IN ('active', 'invalid')
                  AND system_activity_id <> ALL($3::text[])
                  AND ($4::text[] IS NULL OR attributes_type = ANY($4::text[]))
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM ch), (SELECT count(*) FROM done)
            """
    }

    /// Moves the pending `end_at` schedule of instance `$2` on channel `$3` to `$1`; returns its id.
    enum MoveEndSchedule: NamedStatement {
        static let name = "lagw_end_schedule_move_v2"
        static let sql = """
            UPDATE schedules SET send_at = $1::timestamptz, updated_at = now()
            WHERE instance_id = $2::int8 AND name = 'end_at' AND state = 'pending' AND channel_id = $3::uuid
            RETURNING id
            """
    }

    /// Moves the queued firing (dedupe key `$2`) of a moved schedule to `$1`.
    enum MoveEndScheduleJob: NamedStatement {
        static let name = "lagw_end_schedule_move_job_v2"
        static let sql = "UPDATE jobs SET run_at = $1::timestamptz WHERE dedupe_key = $2::text AND state = 'queued'"
    }

    /// An `end_at` schedule: id `$1`, app `$2`, channel `$3`, activity name `$4`, instance `$5`, the push `$6` (JSON
    /// text), at `$7`.
    enum InsertEndSchedule: NamedStatement {
        static let name = "lagw_end_schedule_insert_v2"
        static let sql = """
            INSERT INTO schedules (id, app_id, name, source, channel_id, activity_name, instance_id, push, send_at)
            VALUES ($1::uuid, $2::int8, 'end_at', 'activity', $3::uuid, $4::text, $5::int8, $6::jsonb, $7::timestamptz)
            """
    }

    /// The (channels found, rows changed) of `DeletePushToStart` and `Reconcile`.
    struct CountRow {
        var channelFound: Bool
        var changed: Int

        init(_ row: PostgresRow) throws {
            let (channels, changed) = try row.decode((Int64, Int64).self)
            (self.channelFound, self.changed) = (channels == 1, Int(changed))
        }
    }
}
