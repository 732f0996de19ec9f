import Foundation
import PostgresNIO

/// The statements of folding pending delivery stamps (`DeliveryLedger+Folding.swift`, `sql/0024_pending_stamps.sql`).
/// A push "done adding rows" is one whose row is finished (or gone: retention deleted it) and none of whose batches has
/// a chunk in flight (a canceled push's last chunk is still recorded); each statement that needs it says it in full.
enum StampStatements {
    static let all: [any NamedStatement.Type] = [Self.own, FoldStatements.all].flatMap { $0 }

    private static let own: [any NamedStatement.Type] = [
        RestorePendingPushes.self, NamesWithSupersededStamps.self, ForgetPushesWithoutStamps.self, TryLockName.self,
        SetWorkMem.self, DropSupersededStamps.self,
    ]

    /// A row whose push lost its `delivery_stamp_pushes` row (a chunk recorded as the push was folded) gets it back.
    enum RestorePendingPushes: NamedStatement {
        static let name = "lagw_stamps_restore_pending_pushes"
        static let sql = """
            INSERT INTO delivery_stamp_pushes (push_id, app_id, activity_name, apns_timestamp, push_seq)
            SELECT DISTINCT ON (s.push_id) s.push_id, s.app_id, s.activity_name, s.apns_timestamp, s.push_seq
            FROM delivery_stamps s
            WHERE NOT EXISTS (SELECT 1 FROM delivery_stamp_pushes dp WHERE dp.push_id = s.push_id
              AND dp.app_id = s.app_id)
            ON CONFLICT (push_id, app_id) DO NOTHING
            """
    }

    /// The names (app, activity name) with more than one pending push done adding rows.
    enum NamesWithSupersededStamps: NamedStatement {
        static let name = "lagw_stamps_names_with_superseded"
        static let sql = """
            SELECT dp.app_id, dp.activity_name
            FROM delivery_stamp_pushes dp LEFT JOIN pushes p ON p.id = dp.push_id AND p.app_id = dp.app_id
            WHERE coalesce(p.state NOT IN ('queued', 'sending'), true)
              AND NOT EXISTS (SELECT 1 FROM push_batches b WHERE b.push_id = dp.push_id
                AND b.app_id = dp.app_id AND b.sending_until > now())
            GROUP BY 1, 2 HAVING count(*) > 1
            """

        struct Row {
            var appID: Int64
            var name: String

            init(_ row: PostgresRow) throws { (self.appID, self.name) = try row.decode((Int64, String).self) }
        }
    }

    /// Pending pushes without rows left lose their `delivery_stamp_pushes` row, once done adding rows.
    enum ForgetPushesWithoutStamps: NamedStatement {
        static let name = "lagw_stamps_forget_pushes_without_stamps"
        static let sql = """
            DELETE FROM delivery_stamp_pushes dp
            WHERE NOT EXISTS (SELECT 1 FROM delivery_stamps s WHERE s.push_id = dp.push_id AND s.app_id = dp.app_id)
              AND NOT EXISTS (
                  SELECT 1 FROM pushes p WHERE p.id = dp.push_id AND p.app_id = dp.app_id
                    AND NOT (coalesce(p.state NOT IN ('queued', 'sending'), true)
                             AND NOT EXISTS (SELECT 1 FROM push_batches b
                                             WHERE b.push_id = dp.push_id AND b.app_id = dp.app_id
                                               AND b.sending_until > now())))
            """
    }

    /// The transaction's lock on name `$1` (`app id:activity name`), if no other transaction holds it.
    enum TryLockName: NamedStatement {
        static let name = "lagw_stamps_try_lock_name"
        static let sql = "SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))"

        struct Row {
            var locked: Bool

            init(_ row: PostgresRow) throws { self.locked = try row.decode(Bool.self) }
        }
    }

    /// `SET LOCAL work_mem = '64MB'`, as a statement that prepares: the ids of a million instances are hashed in
    /// memory rather than in batches on disk.
    enum SetWorkMem: NamedStatement {
        static let name = "lagw_stamps_set_local_work_mem"
        static let sql = "SELECT set_config('work_mem', '64MB', true)"
    }

    /// Drops the pending rows of app `$1`'s name `$2` whose pushes are done adding rows and older in `PushOrder` than
    /// its newest such push N. An instance of a dropped row that a pending row of N, or of a push newer than N, also
    /// holds has a newer stamp there. The others (N did not reach them: another audience, not active then) get the
    /// newest dropped stamp written, by primary key, if it is newer than their own. Answers the rows dropped and the
    /// instances stamped.
    ///
    /// When N covers the older pushes, which is the usual case of one update after another, nothing is written to
    /// `live_activities`: the cost is reading the ids (a hash of N's, a probe per dropped one).
    enum DropSupersededStamps: NamedStatement {
        static let name = "lagw_stamps_drop_superseded"
        static let sql = """
            WITH pending AS (
                SELECT dp.push_id, dp.apns_timestamp, dp.push_seq,
                       (coalesce(p.state NOT IN ('queued', 'sending'), true)
                        AND NOT EXISTS (SELECT 1 FROM push_batches b
                                        WHERE b.push_id = dp.push_id AND b.app_id = dp.app_id
                                          AND b.sending_until > now())) AS finished
                FROM delivery_stamp_pushes dp LEFT JOIN pushes p ON p.id = dp.push_id AND p.app_id = dp.app_id
                WHERE dp.app_id = $1 AND dp.activity_name = $2
            ),
            newest AS (
                SELECT apns_timestamp, push_seq FROM pending WHERE finished
                ORDER BY apns_timestamp DESC, push_seq DESC LIMIT 1
            ),
            old AS (
                SELECT p.push_id FROM pending p, newest n
                WHERE p.finished AND (p.apns_timestamp, p.push_seq) < (n.apns_timestamp, n.push_seq)
            ),
            taken AS (
                DELETE FROM delivery_stamps s WHERE s.app_id = $1 AND s.push_id IN (SELECT push_id FROM old)
                RETURNING s.push_id, s.apns_timestamp, s.push_seq, s.delivered_at, s.instance_ids
            ),
            covered AS (
                SELECT x.id FROM delivery_stamps s, unnest(s.instance_ids) AS x(id)
                WHERE s.app_id = $1 AND s.push_id IN (SELECT p.push_id FROM pending p, newest n
                                    WHERE (p.apns_timestamp, p.push_seq) >= (n.apns_timestamp, n.push_seq))
            ),
            uncovered AS (
                SELECT DISTINCT ON (x.id) x.id, t.push_id, t.apns_timestamp, t.push_seq, t.delivered_at
                FROM taken t, unnest(t.instance_ids) AS x(id)
                WHERE NOT EXISTS (SELECT 1 FROM covered c WHERE c.id = x.id)
                ORDER BY x.id, t.apns_timestamp DESC, t.push_seq DESC
            ),
            stamped AS (
                UPDATE live_activities l
                SET (last_apns_timestamp, last_push_seq, last_update_at, last_push_id) =
                    (x.apns_timestamp, x.push_seq, greatest(l.last_update_at, x.delivered_at), x.push_id)
                FROM uncovered x
                WHERE l.id = x.id AND l.app_id = $1
                 
                    AND (x.apns_timestamp, x.push_seq) > (coalesce(l.last_apns_timestamp, 0), coalesce(l.last_push_seq, 0))
                RETURNING 1
            ),
            gone AS (DELETE FROM delivery_stamp_pushes WHERE app_id = $1 AND push_id IN (SELECT push_id FROM old))
            SELECT (SELECT count(*) FROM taken)::int8, (SELECT count(*) FROM stamped)::int8
            """

        struct Row {
            var rows: Int
            var instances: Int

            init(_ row: PostgresRow) throws {
                let (rows, instances) = try row.decode((Int64, Int64).self)
                (self.rows, self.instances) = (Int(rows), Int(instances))
            }
        }
    }
}
