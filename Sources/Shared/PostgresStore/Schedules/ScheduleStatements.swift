import Foundation
import LiveActivitiesCore
import PostgresNIO

/// The schedule store's statements (`PostgresScheduleStore`, `ScheduleFiring`).
enum ScheduleStatements {
    static let all: [any NamedStatement.Type] = [Self.own, PolicyStatements.all, ActivityJobStatements.all]
        .flatMap { $0 }

    private static let own: [any NamedStatement.Type] = [
        InsertAPI.self, FindActivity.self, InsertActivityUpdate.self, FindChannel.self, CancelUpdates.self, List.self,
        Get.self, Replace.self, MoveFireJob.self, Cancel.self, DeleteFireJob.self, LockState.self, RecordLaunch.self,
        LockDue.self, MarkSkipped.self, MarkFired.self,
    ]

    /// Schedules of app `$1` made through the API, one per element: ids `$2`, names `$3` ('' for none), pushes `$4`
    /// (JSON text), send times `$5`.
    enum InsertAPI: NamedStatement {
        static let name = "lagw_schedules_insert_api"
        static let sql = """
            INSERT INTO schedules (id, app_id, name, source, push, send_at)
            SELECT id, $1, nullif(name, ''), 'api', push::jsonb, send_at
            FROM unnest($2::uuid[], $3::text[], $4::text[], $5::timestamptz[]) AS x(id, name, push, send_at)
            """
    }

    /// Channel `$2` of app `$3` and its active instance under name `$1` (NULL: none); no row without the channel.
    enum FindActivity: NamedStatement {
        static let name = "lagw_schedules_find_activity_v2"
        static let sql = """
            SELECT c.id, la.id FROM channels c
            LEFT JOIN live_activities la ON la.channel_id = c.id AND la.name = $1::text AND la.state = 'active'
            WHERE c.id = $2::uuid AND c.app_id = $3::int8
            """

        struct Row {
            var channelID: UUID
            var instanceID: Int64?

            init(_ row: PostgresRow) throws { (self.channelID, self.instanceID) = try row.decode((UUID, Int64?).self) }
        }
    }

    /// A device-scheduled update: id `$1`, app `$2`, schedule name `$3`, channel `$4`, activity name `$5`, instance
    /// `$6`, push `$7` (JSON text), at `$8`.
    enum InsertActivityUpdate: NamedStatement {
        static let name = "lagw_schedules_insert_activity_update_v2"
        static let sql = """
            INSERT INTO schedules (id, app_id, name, source, channel_id, activity_name, instance_id, push, send_at)
            VALUES ($1::uuid, $2::int8, $3::text, 'activity', $4::uuid, $5::text, $6::int8, $7::jsonb, $8::timestamptz)
            """
    }

    /// A row when channel `$1` is app `$2`'s.
    enum FindChannel: NamedStatement {
        static let name = "lagw_schedules_find_channel"
        static let sql = "SELECT id FROM channels WHERE id = $1 AND app_id = $2"
    }

    /// Cancels the pending updates of activity `$2` on channel `$1` of app `$3`, and their queued firings; answers how
    /// many.
    enum CancelUpdates: NamedStatement {
        static let name = "lagw_schedules_cancel_updates"
        static let sql = """
            WITH canceled AS (
                UPDATE schedules SET state = 'canceled', updated_at = now()
                WHERE channel_id = $1 AND activity_name = $2 AND state = 'pending' AND app_id = $3
                RETURNING 'schedule:' || id::text AS key
            ), jobs_gone AS (
                DELETE FROM jobs WHERE dedupe_key IN (SELECT key FROM canceled) AND state = 'queued'
            )
            SELECT count(*) FROM canceled
            """
    }

    /// The latest `$2` schedules app `$1` made through the API (rows: `SummaryRow`).
    enum List: NamedStatement {
        static let name = "lagw_schedules_list"
        static let sql = """
            SELECT id, name, state, send_at, push_id, skip_reason, push::text FROM schedules
            WHERE app_id = $1 AND source = 'api' ORDER BY send_at DESC LIMIT $2
            """
    }

    /// App `$1`'s schedule `$2` (a row: `SummaryRow`).
    enum Get: NamedStatement {
        static let name = "lagw_schedules_get"
        static let sql = """
            SELECT id, name, state, send_at, push_id, skip_reason, push::text FROM schedules
            WHERE app_id = $1 AND id = $2
            """
    }

    /// A row of `List` or `Get`.
    struct SummaryRow {
        var summary: ScheduleSummary

        init(_ row: PostgresRow) throws {
            let (id, name, state, sendAt, pushID, skipReason, push) = try row.decode(
                (UUID, String?, ScheduleState, Date, UUID?, String?, String).self)
            self.summary = ScheduleSummary(
                scheduleID: id, name: name, state: state, sendAt: sendAt, pushID: pushID, skipReason: skipReason,
                push: (try? JSONDecoder().decode(JSONValue.self, from: Data(push.utf8))) ?? .null)
        }
    }

    /// Schedule `$4` gets name `$1`, push `$2` (JSON text) and send time `$3`.
    enum Replace: NamedStatement {
        static let name = "lagw_schedules_replace"
        static let sql = """
            UPDATE schedules SET name = $1, push = $2::jsonb, send_at = $3, updated_at = now()
            WHERE id = $4
            """
    }

    /// The queued firing (dedupe key `$2`) of a moved schedule runs at `$1`.
    enum MoveFireJob: NamedStatement {
        static let name = "lagw_schedules_move_fire_job"
        static let sql = """
            UPDATE jobs SET run_at = $1, updated_at = now()
            WHERE dedupe_key = $2 AND state = 'queued'
            """
    }

    /// Cancels schedule `$1`.
    enum Cancel: NamedStatement {
        static let name = "lagw_schedules_cancel"
        static let sql = "UPDATE schedules SET state = 'canceled', updated_at = now() WHERE id = $1"
    }

    /// Deletes the queued firing (dedupe key `$1`) of a canceled schedule.
    enum DeleteFireJob: NamedStatement {
        static let name = "lagw_schedules_delete_fire_job"
        static let sql = "DELETE FROM jobs WHERE dedupe_key = $1 AND state = 'queued'"
    }

    /// Locks app `$2`'s schedule `$1`; its state.
    enum LockState: NamedStatement {
        static let name = "lagw_schedules_lock_state"
        static let sql = "SELECT state FROM schedules WHERE id = $1 AND app_id = $2 FOR UPDATE"
    }

    /// Records the launch of system activity `$3` on channel `$1` of app `$2`, in one statement: the launch row and
    /// its attribution (the last push its instance was sent, and that push's schedule). Prepared: every tap that opens
    /// the app from an activity runs it.
    enum RecordLaunch: NamedStatement {
        static let name = "lagw_launch_record_v2"
        static let sql = """
            WITH ch AS (SELECT id FROM channels WHERE id = $1::uuid AND app_id = $2::int8),
            instance AS (
                SELECT \(PendingStamps.lastPush(of: "la")) AS last_push_id FROM live_activities la
                WHERE la.channel_id IN (SELECT id FROM ch) AND la.system_activity_id = $3::text
                ORDER BY la.id DESC LIMIT 1
            ),
            attribution AS (
                SELECT p.id AS push_id, s.id AS schedule_id, s.name AS schedule_name
                FROM instance i JOIN pushes p ON p.id = i.last_push_id LEFT JOIN schedules s ON s.id = p.schedule_id
            ),
            stored AS (
                INSERT INTO launches (app_id, channel_id, system_activity_id, push_id, schedule_id)
                SELECT $2::int8, ch.id, $3::text, a.push_id, a.schedule_id
                FROM ch LEFT JOIN attribution a ON true
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM ch), a.schedule_id, a.schedule_name, a.push_id
            FROM (SELECT 1) one LEFT JOIN attribution a ON true
            """

        struct Row {
            var channelFound: Bool
            var attribution: LaunchAttribution

            init(_ row: PostgresRow) throws {
                let (channels, scheduleID, name, pushID) = try row.decode((Int64, UUID?, String?, UUID?).self)
                self.channelFound = channels == 1
                self.attribution = LaunchAttribution(scheduleID: scheduleID, scheduleName: name, pushID: pushID)
            }
        }
    }

    /// Locks up to `$2` of app `$1`'s due pending schedules, oldest first, skipping those another firing holds.
    enum LockDue: NamedStatement {
        static let name = "lagw_schedules_lock_due"
        static let sql = """
            SELECT s.id, s.app_id, s.push::text,
                   s.source = 'api' OR EXISTS (SELECT 1 FROM live_activities la
                                               WHERE la.id = s.instance_id AND la.state = 'active')
            FROM schedules s
            WHERE s.app_id = $1 AND s.state = 'pending' AND s.send_at <= now()
            ORDER BY s.send_at
            LIMIT $2
            FOR UPDATE OF s SKIP LOCKED
            """

        struct Row {
            var id: UUID
            var appID: Int64
            /// The stored push, as JSON text.
            var push: String
            /// An API schedule, or an activity's whose instance is still active.
            var live: Bool

            init(_ row: PostgresRow) throws {
                (self.id, self.appID, self.push, self.live) = try row.decode((UUID, Int64, String, Bool).self)
            }
        }
    }

    /// Schedules `$1` skipped, each for its reason in `$2`.
    enum MarkSkipped: NamedStatement {
        static let name = "lagw_schedules_mark_skipped"
        static let sql = """
            UPDATE schedules s SET state = 'skipped', skip_reason = x.reason, fired_at = now(), updated_at = now()
            FROM unnest($1::uuid[], $2::text[]) AS x(id, reason)
            WHERE s.id = x.id
            """
    }

    /// Schedules `$1` fired, each as its push in `$2`.
    enum MarkFired: NamedStatement {
        static let name = "lagw_schedules_mark_fired"
        static let sql = """
            UPDATE schedules s SET state = 'fired', push_id = x.push_id, fired_at = now(), updated_at = now()
            FROM unnest($1::uuid[], $2::uuid[]) AS x(id, push_id)
            WHERE s.id = x.id
            """
    }
}
