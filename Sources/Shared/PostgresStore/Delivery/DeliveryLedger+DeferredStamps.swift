import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// Deferred delivery stamps (`sql/0011_deferred_stamps.sql`, `sql/0024_pending_stamps.sql`). A push sent in batches
/// records, per chunk, the instances it reached in one `delivery_stamps` row, and they stay pending there: nothing
/// rewrites a million instances after the push. Readers that need an instance's last push merge them
/// (`PendingStamps`); a push older than a pending stamp folds the stamps that could make it skip an instance; apps
/// whose jobs read the rows fold theirs first; and a push's rows are dropped once a newer push of the name covers them.
extension DeliveryLedger {
    /// Pending stamp rows taken per fold statement: a bound on the row locks one statement holds. One backend folds
    /// a million instances faster with more rows a statement (7.1-7.4 s at 16, 5.7 s at 128, on a million instances
    /// in chunks of 1,000), but two statements side by side at 128 took 8.9 s instead of 4.1 s (`make bench-fanout`,
    /// when every push was folded): two open statements updating the same pages fill them before either can prune.
    static let foldRowsPerStatement = 16

    /// When a push's chunk select found them (its `blocked` column): folds the pending stamps of the same app and
    /// name that are newer than the push in `PushOrder` (timestamp, then acceptance) and hold channels in
    /// (after, through] (nil: unbounded), so that the select, made again, sees every instance's last push. Returns how
    /// many instances were stamped.
    @discardableResult
    public func foldStamps(blocking push: PushForDelivery, after: UUID? = nil, through: UUID? = nil) async throws
        -> Int
    {
        guard push.targets.event != .start, let name = push.targets.name else { return 0 }
        return try await self.fold(
            """
            SELECT s.id FROM delivery_stamps s
            WHERE s.app_id = \(push.appID) AND s.activity_name = \(name) AND s.apns_timestamp >= \(push.timestamp)
              AND (s.apns_timestamp, s.push_seq) > (\(push.timestamp), \(push.seq))
              AND (\(after)::uuid IS NULL OR s.last_channel > \(after))
              AND (\(through)::uuid IS NULL OR s.first_channel <= \(through))
            """)
    }

    /// Folds every pending stamp of the apps with an idle-end or a renewal policy: those jobs read `last_update_at`
    /// and `last_push_id` of many instances at once, in the rows.
    @discardableResult
    public func foldStampsOfAppsWithPolicies() async throws -> Int {
        try await self.fold(
            """
            SELECT s.id FROM delivery_stamps s
            WHERE s.app_id IN (SELECT app_id FROM activity_policies WHERE idle_end_seconds IS NOT NULL
                               UNION SELECT app_id FROM renew_policies)
            """)
    }

    /// Folds the pending rows that `select` picks (a query of `delivery_stamps` ids), a few at a time (each statement
    /// its own transaction), until a statement finds none. A row another fold holds is waited for, then found gone
    /// (so a statement may take fewer than it could: only an empty one ends the loop).
    func fold(_ select: PostgresQuery) async throws -> Int {
        var stamped = 0
        var deadlocks = 0
        while true {
            var taken: Int64 = 0
            do {
                let rows = try await self.database.client.query(
                    Self.foldStatement(select), logger: self.database.logger)
                for try await (pending, instances) in rows.decode((Int64, Int64).self) {
                    taken = pending
                    stamped += Int(instances)
                }
            } catch  where error.isDeadlock && deadlocks < 3 {
                deadlocks += 1  // the statement rolled back as a whole: its rows are still pending
                continue
            }
            if taken == 0 { return stamped }
        }
    }

    /// One statement: takes up to `foldRowsPerStatement` of the pending rows `select` picks, keeps the newest stamp
    /// per instance, writes it (`stampUpdate`), and answers how many pending rows and instances it took.
    static func foldStatement(_ select: PostgresQuery) -> PostgresQuery {
        // Only `select` has bindings: the text around it is fixed, so its `$n` stay as they are.
        let sql = """
            WITH taken AS (
                DELETE FROM delivery_stamps
                WHERE id IN (\(select.sql) ORDER BY 1 LIMIT \(Self.foldRowsPerStatement) FOR UPDATE OF s)
                RETURNING push_id, apns_timestamp, push_seq, delivered_at, instance_ids
            ),
            newest AS (
                SELECT DISTINCT ON (x.id) x.id, t.push_id, t.apns_timestamp, t.push_seq, t.delivered_at
                FROM taken t, unnest(t.instance_ids) AS x(id)
                ORDER BY x.id, t.apns_timestamp DESC, t.push_seq DESC
            ),
            stamped AS (\(Self.stampUpdate(from: "newest"))
            )
            SELECT (SELECT count(*) FROM taken)::int8, (SELECT count(*) FROM newest)::int8
            """
        return PostgresQuery(unsafeSQL: sql, binds: select.binds)
    }
}

extension DeliveryLedger {
    /// The update that writes pending stamps (`source`: rows of `id, push_id, apns_timestamp, push_seq, delivered_at`,
    /// one per instance) into their instances, by primary key (see `sql/0011_deferred_stamps.sql`), whatever their
    /// state (an ended activity stays on the Lock Screen, and a tap on it is attributed to its last push). Only a stamp
    /// newer in `PushOrder` than the instance's last push is written: an update sent in between by a single-chunk
    /// push stays, and an instance that already has it is not rewritten.
    static func stampUpdate(from source: String) -> String {
        """
        UPDATE live_activities l
        SET (last_apns_timestamp, last_push_seq, last_update_at, last_push_id) =
            (x.apns_timestamp, x.push_seq, greatest(l.last_update_at, x.delivered_at), x.push_id)
        FROM \(source) x
        WHERE l.id = x.id
          AND (x.apns_timestamp, x.push_seq) > (coalesce(l.last_apns_timestamp, 0), coalesce(l.last_push_seq, 0))
        """
    }
}
