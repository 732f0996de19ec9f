import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// Deferred delivery stamps (`sql/0011_deferred_stamps.sql`). A push sent in batches records, per chunk, the
/// instances it reached in one `delivery_stamps` row; folding applies those rows to `live_activities` (the APNs
/// timestamp, the time of the update, the push) and deletes them, in the same statement.
extension DeliveryLedger {
    /// Pending stamp rows taken per fold statement: a bound on the row locks one statement holds. One backend alone
    /// folds a million instances faster with more rows a statement (7.1-7.4 s at 16, 5.7 s at 128, on a million
    /// instances in chunks of 1,000), but two statements side by side at 128 took 8.9 s instead of 4.1 s after the
    /// push (`make bench-fanout`): each page has room for about eight new row versions, and two open statements
    /// updating the same pages fill it before either can prune, so updates leave the page and touch every index.
    static let foldRowsPerStatement = 16

    /// When a push's chunk select found them (its `blocked` column): folds the pending stamps of the same app and
    /// name that are newer than the push in `PushOrder` (timestamp, then acceptance), so that the select, made
    /// again, sees every instance's last push. Returns how many instances were stamped.
    @discardableResult
    public func foldStamps(blocking push: PushForDelivery) async throws -> Int {
        guard push.targets.event != .start, let name = push.targets.name else { return 0 }
        return try await self.fold(
            """
            SELECT s.id FROM delivery_stamps s
            WHERE s.app_id = \(push.appID) AND s.activity_name = \(name) AND s.apns_timestamp >= \(push.timestamp)
              AND (s.apns_timestamp, s.push_seq) > (\(push.timestamp), \(push.seq))
            """)
    }

    /// Folds the pending stamps of pushes that are no longer sending, and any written more than `age` ago, with
    /// `statements` of them running at once on their own connections (rows one holds, the others skip). Returns how
    /// many instances were stamped.
    ///
    /// Two at once cut the wall time on two cores (a million instances: 12.3-12.8 s after the push with one
    /// statement every 5 s, 4.1-4.8 s with two at once from the push's end, `make bench-fanout`). Each statement's
    /// update is driven by `newest`, sorted by instance id, so the plan it gets locks instances in id order and two
    /// statements wait for each other rather than deadlock; a plan that locks in another order could, and a deadlock
    /// PostgreSQL reports is retried (the statement rolled back whole).
    @discardableResult
    public func foldFinishedStamps(olderThan age: Duration = .seconds(60), statements: Int = 1) async throws -> Int {
        let select: PostgresQuery = """
            SELECT s.id FROM delivery_stamps s JOIN pushes p ON p.id = s.push_id
            WHERE p.state <> 'sending' OR s.delivered_at < now() - make_interval(secs => \(age.seconds))
            """
        guard statements > 1 else { return try await self.fold(select) }
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<statements { group.addTask { try await self.fold(select, skipLocked: true) } }
            return try await group.reduce(0, +)
        }
    }

    /// Folds every pending stamp of the apps that have an idle-end policy: the idle check reads `last_update_at`.
    @discardableResult
    public func foldStampsOfAppsWithIdleEnd() async throws -> Int {
        try await self.fold(
            """
            SELECT s.id FROM delivery_stamps s
            WHERE s.app_id IN (SELECT app_id FROM activity_policies WHERE idle_end_seconds IS NOT NULL)
            """)
    }

    /// Folds the pending rows that `select` picks (a query of `delivery_stamps` ids), a few at a time (each statement
    /// its own transaction), until a statement finds none. A row another fold holds is waited for, then found gone
    /// (so a statement may take fewer than it could: only an empty one ends the loop).
    /// `skipLocked`: rows another fold holds are left to it, so a statement that finds none ends the loop at once
    /// (for folds that run side by side; a fold that must see every row applied before it returns waits instead).
    private func fold(_ select: PostgresQuery, skipLocked: Bool = false) async throws -> Int {
        var stamped = 0
        var deadlocks = 0
        while true {
            var taken: Int64 = 0
            do {
                let rows = try await self.database.client.query(
                    Self.foldStatement(select, skipLocked: skipLocked), logger: self.database.logger)
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
    /// per instance, writes it (by primary key: see `sql/0011_deferred_stamps.sql`), and answers how many pending rows
    /// and instances it took. A stamp never moves an instance's last push back in `PushOrder`, and the update time
    /// follows it: an update sent in between by a single-chunk push stays.
    static func foldStatement(_ select: PostgresQuery, skipLocked: Bool = false) -> PostgresQuery {
        // Only `select` has bindings: the text around it is fixed, so its `$n` stay as they are.
        let lock = skipLocked ? "FOR UPDATE OF s SKIP LOCKED" : "FOR UPDATE OF s"
        let sql = """
            WITH taken AS (
                DELETE FROM delivery_stamps
                WHERE id IN (\(select.sql) ORDER BY 1 LIMIT \(Self.foldRowsPerStatement) \(lock))
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
                    (SELECT CASE WHEN newer THEN x.apns_timestamp ELSE l.last_apns_timestamp END,
                            CASE WHEN newer THEN x.push_seq ELSE l.last_push_seq END,
                            CASE WHEN newer THEN greatest(l.last_update_at, x.delivered_at) ELSE l.last_update_at END,
                            CASE WHEN newer THEN x.push_id ELSE l.last_push_id END
                     FROM (SELECT (x.apns_timestamp, x.push_seq) >= (coalesce(l.last_apns_timestamp, 0),
                                                                     coalesce(l.last_push_seq, 0)) AS newer) o)
                FROM newest x
                WHERE l.id = x.id AND l.state = 'active'
            )
            SELECT (SELECT count(*) FROM taken)::int8, (SELECT count(*) FROM newest)::int8
            """
        return PostgresQuery(unsafeSQL: sql, binds: select.binds)
    }
}
