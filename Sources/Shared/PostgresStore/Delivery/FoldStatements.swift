import Foundation
import LiveActivitiesCore
import PostgresNIO

/// The fold statements (`DeliveryLedger.fold`), one per choice of pending rows. Each takes up to its last parameter's
/// number of the rows it picks (locked in id order), keeps the newest stamp per instance, writes it into the instance
/// by primary key (see `sql/0011_deferred_stamps.sql`) whatever the instance's state (an ended activity stays on the
/// Lock Screen, and a tap on it is attributed to its last push), and answers how many pending rows and instances it
/// took (`Row`). Only a stamp newer in `PushOrder` than the instance's last push is written: an update sent in between
/// by a single-chunk push stays, and an instance that already has it is not rewritten.
enum FoldStatements {
    static let all: [any NamedStatement.Type] = [
        FoldBlocking.self, FoldOfApp.self, NamesWithoutActiveInstances.self, FoldOfNames.self,
    ]

    /// The pending rows of app `$1`'s name `$2` newer in `PushOrder` than (timestamp `$3`, acceptance `$4`) that hold
    /// channels in (`$5`, `$6`] (NULL: unbounded); up to `$7` of them.
    enum FoldBlocking: NamedStatement {
        static let name = "lagw_fold_blocking"
        static let sql = """
            WITH taken AS (
                DELETE FROM delivery_stamps
                WHERE id IN (
                    SELECT s.id FROM delivery_stamps s
                    WHERE s.app_id = $1 AND s.activity_name = $2 AND s.apns_timestamp >= $3
                      AND (s.apns_timestamp, s.push_seq) > ($3, $4)
                      AND ($5::uuid IS NULL OR s.last_channel > $5)
                      AND ($6::uuid IS NULL OR s.first_channel <= $6)
                    ORDER BY 1 LIMIT $7 FOR UPDATE OF s)
                RETURNING push_id, apns_timestamp, push_seq, delivered_at, instance_ids
            ),
            newest AS (
                SELECT DISTINCT ON (x.id) x.id, t.push_id, t.apns_timestamp, t.push_seq, t.delivered_at
                FROM taken t, unnest(t.instance_ids) AS x(id)
                ORDER BY x.id, t.apns_timestamp DESC, t.push_seq DESC
            ),
            stamped AS (
                UPDATE live_activities l
                SET (last_apns_timestamp, last_push_seq, last_update_at, last_push_id) =
                    (x.apns_timestamp, x.push_seq, greatest(l.last_update_at, x.delivered_at), x.push_id)
                FROM newest x
                WHERE l.id = x.id AND l.app_id = $1
                  AND (x.apns_timestamp, x.push_seq) > (coalesce(l.last_apns_timestamp, 0), coalesce(l.last_push_seq, 0))
            )
            SELECT (SELECT count(*) FROM taken)::int8, (SELECT count(*) FROM newest)::int8
            """

        static func query(
            appID: Int64, name: String, order: PushOrder, after: UUID?, through: UUID?, limit: Int
        ) -> PostgresQuery {
            var binds = PostgresBindings(capacity: 7)
            binds.append(appID)
            binds.append(name)
            binds.append(order.timestamp)
            binds.append(order.seq)
            binds.append(after)
            binds.append(through)
            binds.append(Int64(limit))
            return Self.bound(binds)
        }
    }

    /// The pending rows of app `$1` (one with an idle-end or a renewal policy: those jobs read `last_update_at` and
    /// `last_push_id` of many instances at once, in the rows); up to `$2` of them.
    enum FoldOfApp: NamedStatement {
        static let name = "lagw_fold_of_app_v2"
        static let sql = """
            WITH taken AS (
                DELETE FROM delivery_stamps
                WHERE id IN (
                    SELECT s.id FROM delivery_stamps s
                    WHERE s.app_id = $1
                    ORDER BY 1 LIMIT $2 FOR UPDATE OF s)
                RETURNING push_id, apns_timestamp, push_seq, delivered_at, instance_ids
            ),
            newest AS (
                SELECT DISTINCT ON (x.id) x.id, t.push_id, t.apns_timestamp, t.push_seq, t.delivered_at
                FROM taken t, unnest(t.instance_ids) AS x(id)
                ORDER BY x.id, t.apns_timestamp DESC, t.push_seq DESC
            ),
            stamped AS (
                UPDATE live_activities l
                SET (last_apns_timestamp, last_push_seq, last_update_at, last_push_id) =
                    (x.apns_timestamp, x.push_seq, greatest(l.last_update_at, x.delivered_at), x.push_id)
                FROM newest x
                WHERE l.id = x.id AND l.app_id = $1
                  AND (x.apns_timestamp, x.push_seq) > (coalesce(l.last_apns_timestamp, 0), coalesce(l.last_push_seq, 0))
            )
            SELECT (SELECT count(*) FROM taken)::int8, (SELECT count(*) FROM newest)::int8
            """
    }

    /// App `$1`'s names with pending rows, no active instance left and no pending push still adding rows (one
    /// finished, or gone, with no chunk in flight): `FoldOfNames` folds their rows. A read of its own: inside the fold's
    /// `DELETE` Citus planned it as a nested subplan and failed reading its result ("invalid input syntax for type
    /// bigint: "PGCOPY"", Citus 13.2).
    enum NamesWithoutActiveInstances: NamedStatement {
        static let name = "lagw_fold_names_without_active_instances"
        static let sql = """
            SELECT DISTINCT dp.activity_name FROM delivery_stamp_pushes dp
            WHERE dp.app_id = $1
              AND NOT EXISTS (SELECT 1 FROM live_activities l
                              WHERE l.app_id = $1 AND l.name = dp.activity_name AND l.state = 'active')
              AND NOT EXISTS (
                  SELECT 1 FROM delivery_stamp_pushes o
                  LEFT JOIN pushes p ON p.id = o.push_id AND p.app_id = $1
                  WHERE o.app_id = $1 AND o.activity_name = dp.activity_name
                    AND NOT (coalesce(p.state NOT IN ('queued', 'sending'), true)
                             AND NOT EXISTS (SELECT 1 FROM push_batches b
                                             WHERE b.push_id = o.push_id AND b.app_id = $1
                                               AND b.sending_until > now())))
            """
    }

    /// The pending rows of app `$1`'s names `$2`; up to `$3` of them.
    enum FoldOfNames: NamedStatement {
        static let name = "lagw_fold_of_names"
        static let sql = """
            WITH taken AS (
                DELETE FROM delivery_stamps
                WHERE id IN (
                    SELECT s.id FROM delivery_stamps s
                    WHERE s.app_id = $1 AND s.activity_name = ANY($2::text[])
                    ORDER BY 1 LIMIT $3 FOR UPDATE OF s)
                RETURNING push_id, apns_timestamp, push_seq, delivered_at, instance_ids
            ),
            newest AS (
                SELECT DISTINCT ON (x.id) x.id, t.push_id, t.apns_timestamp, t.push_seq, t.delivered_at
                FROM taken t, unnest(t.instance_ids) AS x(id)
                ORDER BY x.id, t.apns_timestamp DESC, t.push_seq DESC
            ),
            stamped AS (
                UPDATE live_activities l
                SET (last_apns_timestamp, last_push_seq, last_update_at, last_push_id) =
                    (x.apns_timestamp, x.push_seq, greatest(l.last_update_at, x.delivered_at), x.push_id)
                FROM newest x
                WHERE l.id = x.id AND l.app_id = $1
                  AND (x.apns_timestamp, x.push_seq) > (coalesce(l.last_apns_timestamp, 0), coalesce(l.last_push_seq, 0))
            )
            SELECT (SELECT count(*) FROM taken)::int8, (SELECT count(*) FROM newest)::int8
            """
    }

    /// What a fold statement took: pending rows, and instances (one per distinct instance in them).
    struct Row {
        var rows: Int64
        var instances: Int64

        init(_ row: PostgresRow) throws { (self.rows, self.instances) = try row.decode((Int64, Int64).self) }
    }
}
