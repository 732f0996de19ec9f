import Foundation
import LiveActivitiesCore
import PostgresNIO

/// The broadcast channels' statements (`PostgresBroadcastChannelStore`, `BroadcastLedger`).
enum BroadcastStatements {
    static let all: [any NamedStatement.Type] = [
        Claim.self, Record.self, Channel.self, List.self, Count.self, Insert.self, Remove.self, Routing.self, Idle.self,
        ReconcileTargets.self, DeleteDrift.self, InsertDrift.self,
    ]

    /// Takes channel `$3`'s lease (app `$2`) for push `$1` for `$4` (an interval, as text), unless the push finished, a
    /// later push was sent, or another holds the lease. Answers the push's acceptance order, whether it finished,
    /// whether the lease was taken, and whether a later push was sent (NULL: no such channel).
    enum Claim: NamedStatement {
        static let name = "lagw_broadcast_claim"
        static let sql = """
            WITH p AS (SELECT seq, broadcast_status, state FROM pushes WHERE id = $1 AND app_id = $2),
            c AS (
                UPDATE broadcast_channels c
                SET sending_seq = p.seq, sending_until = now() + $4::interval, last_push_at = now()
                FROM p
                WHERE c.app_id = $2 AND c.channel_id = $3
                  AND p.broadcast_status IS NULL AND p.state = 'queued'
                  AND (c.sending_until IS NULL OR c.sending_until < now() OR c.sending_seq = p.seq)
                  AND coalesce(c.last_sent_seq, 0) < p.seq
                RETURNING 1
            )
            SELECT p.seq, (p.broadcast_status IS NOT NULL OR p.state <> 'queued'), (SELECT count(*) FROM c),
                   (SELECT coalesce(b.last_sent_seq, 0) >= p.seq FROM broadcast_channels b
                    WHERE b.app_id = $2 AND b.channel_id = $3)
            FROM p
            """

        struct Row {
            var seq: Int64
            var finished: Bool
            var claimed: Bool
            /// nil: the channel is gone.
            var superseded: Bool?

            init(_ row: PostgresRow) throws {
                let (seq, finished, claimed, superseded) = try row.decode((Int64, Bool, Int64, Bool?).self)
                (self.seq, self.finished, self.claimed, self.superseded) = (seq, finished, claimed > 0, superseded)
            }
        }
    }

    /// Records Apple's answer to push `$1`'s broadcast (app `$2`) on channel `$3` and releases the channel's lease
    /// held for acceptance order `$4`: `$5` whether Apple accepted it, `$6` its status (NULL: none came), `$7` the
    /// reason, `$8` Apple's unique id, `$9` when the request went out (NULL: now), `$10` whether a push that goes by
    /// broadcast alone is done (else failed). The time comes from `clock`: Citus takes no `now()` inside a `CASE` or
    /// `coalesce` in an update.
    enum Record: NamedStatement {
        static let name = "lagw_broadcast_record_v2"
        static let sql = """
            WITH clock AS (SELECT now() AS now),
            released AS (
                UPDATE broadcast_channels
                SET last_sent_seq = CASE WHEN $5::bool THEN greatest(coalesce(last_sent_seq, 0), $4)
                                         ELSE last_sent_seq END,
                    sending_seq = NULL, sending_until = NULL
                WHERE app_id = $2 AND channel_id = $3 AND sending_seq = $4
            )
            UPDATE pushes
            SET broadcast_status = $6, broadcast_reason = $7::text, apns_unique_id = $8,
                broadcast_sent_at = coalesce($9::timestamptz, k.now), started_at = coalesce(started_at, k.now),
                state = CASE WHEN delivery = 'broadcast' THEN (CASE WHEN $10::bool THEN 'done' ELSE 'failed' END)
                             ELSE state END,
                failure_reason = CASE WHEN delivery = 'broadcast' AND NOT $10::bool THEN $7::text
                                      ELSE failure_reason END,
                finished_at = CASE WHEN delivery = 'broadcast' THEN k.now ELSE finished_at END
            FROM clock k
            WHERE id = $1 AND app_id = $2
            """
    }

    /// App `$1`'s channel of name `$2` in its current environment (a row: `ChannelRow`).
    enum Channel: NamedStatement {
        static let name = "lagw_broadcast_channel"
        static let sql = """
            SELECT c.name, c.channel_id, c.storage, c.environment, c.created_at
            FROM broadcast_channels c JOIN apps a ON a.id = c.app_id
            WHERE c.app_id = $1 AND c.environment = a.apns_environment AND c.name = $2
            """
    }

    /// Up to `$3` of app `$1`'s channels in its current environment, in name order after `$2` (rows: `ChannelRow`).
    enum List: NamedStatement {
        static let name = "lagw_broadcast_list"
        static let sql = """
            SELECT c.name, c.channel_id, c.storage, c.environment, c.created_at
            FROM broadcast_channels c JOIN apps a ON a.id = c.app_id
            WHERE c.app_id = $1 AND c.environment = a.apns_environment AND c.name > $2
            ORDER BY c.name LIMIT $3
            """
    }

    /// How many channels app `$1` has in its current environment.
    enum Count: NamedStatement {
        static let name = "lagw_broadcast_count"
        static let sql = """
            SELECT count(*) FROM broadcast_channels c JOIN apps a ON a.id = c.app_id
            WHERE c.app_id = $1 AND c.environment = a.apns_environment
            """
    }

    /// App `$1`'s channel `$4` of name `$3` in environment `$2`, storage `$5`, unless the name has one (a row:
    /// `ChannelRow`).
    enum Insert: NamedStatement {
        static let name = "lagw_broadcast_insert"
        static let sql = """
            INSERT INTO broadcast_channels AS c (app_id, environment, name, channel_id, storage)
            VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (app_id, environment, name) DO NOTHING
            RETURNING c.name, c.channel_id, c.storage, c.environment, c.created_at
            """
    }

    /// A row of `Channel`, `List` or `Insert`.
    struct ChannelRow {
        var channel: BroadcastChannel

        init(_ row: PostgresRow) throws {
            let (name, id, storage, environment, created) = try row.decode((String, String, String, String, Date).self)
            self.channel = BroadcastChannel(
                name: name, channelID: id, storage: BroadcastStorage(rawValue: storage) ?? .noStorage,
                environment: environment, created: created)
        }
    }

    /// Forgets app `$1`'s channel `$3` in environment `$2`; the instances reachable only through it end. Answers how
    /// many channels went.
    enum Remove: NamedStatement {
        static let name = "lagw_broadcast_remove"
        static let sql = """
            WITH gone AS (
                DELETE FROM broadcast_channels
                WHERE app_id = $1 AND environment = $2 AND channel_id = $3
                RETURNING channel_id
            ),
            unsubscribed AS (
                UPDATE live_activities l SET state = 'ended', ended_reason = 'channel_deleted', ended_at = now()
                FROM gone
                WHERE l.app_id = $1 AND l.broadcast_channel_id = gone.channel_id AND l.push_token IS NULL
                  AND l.state IN ('active', 'invalid')
            )
            SELECT count(*) FROM gone
            """
    }

    /// App `$1`'s channels of names `$2` in its current environment.
    /// Prepared (`prepared(_:_:)`): a push that may route by broadcast reads it, and unprepared PostgreSQL spent
    /// 0.14-0.20 ms planning it against 0.01-0.02 ms running it (pg_stat_statements of two fan-out benches' single
    /// updates: docs/benchmarks.md).
    enum Routing: NamedStatement {
        static let name = "lagw_broadcast_routing_v2"
        static let sql = """
            SELECT c.name, c.channel_id, c.storage FROM broadcast_channels c JOIN apps a ON a.id = c.app_id
            WHERE c.app_id = $1::int8 AND c.environment = a.apns_environment AND c.name = ANY($2::text[])
            """

        struct Row {
            var name: String
            var channel: BroadcastChannelRef

            init(_ row: PostgresRow) throws {
                let (name, id, storage) = try row.decode((String, String, String).self)
                self.name = name
                self.channel = BroadcastChannelRef(
                    channelID: id, storage: BroadcastStorage(rawValue: storage) ?? .noStorage)
            }
        }
    }

    /// Up to `$1` channels with no push and no tracked instance for their app's `broadcast_idle_after`, longest idle
    /// first.
    enum Idle: NamedStatement {
        static let name = "lagw_broadcast_idle"
        static let sql = """
            SELECT c.app_id, c.environment, c.channel_id FROM broadcast_channels c JOIN apps a ON a.id = c.app_id
            WHERE coalesce(c.last_push_at, c.created_at) < now() - a.broadcast_idle_after
              AND (c.sending_until IS NULL OR c.sending_until < now())
              AND NOT EXISTS (SELECT 1 FROM live_activities l WHERE l.app_id = c.app_id
                              AND l.broadcast_channel_id = c.channel_id AND l.state = 'active')
            ORDER BY coalesce(c.last_push_at, c.created_at) LIMIT $1
            """
    }

    /// The apps to reconcile (those with a channel, or that delete unknown ones), with their channel ids in their
    /// current environment, and whether they delete Apple-only channels.
    enum ReconcileTargets: NamedStatement {
        static let name = "lagw_broadcast_reconcile_targets"
        static let sql = """
            SELECT a.id, a.apns_environment, coalesce(array_agg(c.channel_id) FILTER (WHERE c.channel_id IS NOT NULL),
                   '{}'), a.broadcast_delete_unknown
            FROM apps a LEFT JOIN broadcast_channels c ON c.app_id = a.id AND c.environment = a.apns_environment
            GROUP BY a.id
            HAVING count(c.channel_id) > 0 OR a.broadcast_delete_unknown
            """

        struct Row {
            var appID: Int64
            var environment: String
            var ours: Set<String>
            var deleteUnknown: Bool

            init(_ row: PostgresRow) throws {
                let (app, environment, ours, deleteUnknown) = try row.decode((Int64, String, [String], Bool).self)
                (self.appID, self.environment, self.ours, self.deleteUnknown) = (
                    app, environment, Set(ours), deleteUnknown
                )
            }
        }
    }

    /// Deletes what the last reconcile found for app `$1`.
    enum DeleteDrift: NamedStatement {
        static let name = "lagw_broadcast_drift_delete"
        static let sql = "DELETE FROM broadcast_channel_drift WHERE app_id = $1"
    }

    /// What a reconcile found for app `$1` in environment `$2`: channel ids `$3`, each on side `$4` (`apple_only`,
    /// `local_only`); `$5` whether the Apple-only ones were deleted there.
    enum InsertDrift: NamedStatement {
        static let name = "lagw_broadcast_drift_insert"
        static let sql = """
            INSERT INTO broadcast_channel_drift (app_id, environment, channel_id, side, deleted_at_apple)
            SELECT $1, $2, x.id, x.side, x.side = 'apple_only' AND $5::bool
            FROM unnest($3::text[], $4::text[]) AS x(id, side)
            """
    }
}
