import Foundation
import LiveActivitiesCore
import Logging
import PostgresNIO

/// Pending stamps that no reader needs any more are dropped, not folded (`sql/0024_pending_stamps.sql`).
extension DeliveryLedger {
    /// What one `settleStamps()` did.
    public struct Settled: Sendable, Equatable {
        /// Pending rows dropped because a newer push superseded them.
        public var rowsDropped = 0
        /// Instances stamped: from dropped rows that no newer pending push reached, and from the rows of names without
        /// an active instance left (folded).
        public var instancesStamped = 0

        public init(rowsDropped: Int = 0, instancesStamped: Int = 0) {
            self.rowsDropped = rowsDropped
            self.instancesStamped = instancesStamped
        }
    }

    /// Settles the pending stamps of every name: for each name with more than one settled push pending (`settled`), the
    /// rows of the pushes older in `PushOrder` than the newest settled one are dropped (`supersede`); names without an
    /// active instance have their rows folded; settled pushes without rows lose their `delivery_stamp_pushes` row.
    @discardableResult
    public func settleStamps() async throws -> Settled {
        var settled = Settled()
        let logger = self.database.logger
        // A row whose push lost its `delivery_stamp_pushes` row (a chunk recorded as the push was settled) gets it back.
        try await self.database.client.query(
            """
            INSERT INTO delivery_stamp_pushes (push_id, app_id, activity_name, apns_timestamp, push_seq)
            SELECT DISTINCT ON (s.push_id) s.push_id, s.app_id, s.activity_name, s.apns_timestamp, s.push_seq
            FROM delivery_stamps s
            WHERE NOT EXISTS (SELECT 1 FROM delivery_stamp_pushes dp WHERE dp.push_id = s.push_id)
            ON CONFLICT (push_id) DO NOTHING
            """, logger: logger)
        let names = try await self.database.client.query(
            """
            SELECT dp.app_id, dp.activity_name
            FROM delivery_stamp_pushes dp LEFT JOIN pushes p ON p.id = dp.push_id
            WHERE \(unescaped: Self.settled())
            GROUP BY 1, 2 HAVING count(*) > 1
            """, logger: logger
        ).elements
        for row in names {
            let (appID, name) = try row.decode((Int64, String).self)
            let (dropped, stamped) = try await self.supersede(appID: appID, name: name)
            settled.rowsDropped += dropped
            settled.instancesStamped += stamped
        }
        settled.instancesStamped += try await self.foldStampsOfNamesWithoutActiveInstances()
        try await self.database.client.query(
            """
            DELETE FROM delivery_stamp_pushes dp
            WHERE NOT EXISTS (SELECT 1 FROM delivery_stamps s WHERE s.push_id = dp.push_id)
              AND NOT EXISTS (SELECT 1 FROM pushes p WHERE p.id = dp.push_id AND NOT \(unescaped: Self.settled()))
            """, logger: logger)
        return settled
    }

    /// Whether the push of `pending.push_id` (a `delivery_stamp_pushes` alias), joined as `p` (NULL once retention
    /// deleted it), can add no more rows: it has finished, and no batch has a chunk in flight (a canceled push's last
    /// chunk is still recorded).
    static func settled(_ pending: String = "dp") -> String {
        """
        (coalesce(p.state NOT IN ('queued', 'sending'), true)
         AND NOT EXISTS (SELECT 1 FROM push_batches b WHERE b.push_id = \(pending).push_id AND b.sending_until > now()))
        """
    }

    /// Drops the pending rows of the settled pushes of `name` that are older than its newest settled pending push N. An instance of a dropped row that a pending row of N, or of a push newer than N, also holds has a newer
    /// stamp there. The others (N did not reach them: another audience, not active then) get the newest dropped stamp
    /// written, if it is newer than their own. Answers the rows dropped and the instances stamped.
    ///
    /// When N covers the older pushes, which is the usual case of one update after another, nothing is written to
    /// `live_activities`: the cost is reading the ids (a hash of N's, a probe per dropped one).
    func supersede(appID: Int64, name: String) async throws -> (rows: Int, instances: Int) {
        let statement: PostgresQuery = """
            WITH pending AS (
                SELECT dp.push_id, dp.apns_timestamp, dp.push_seq, \(unescaped: Self.settled()) AS finished
                FROM delivery_stamp_pushes dp LEFT JOIN pushes p ON p.id = dp.push_id
                WHERE dp.app_id = \(appID) AND dp.activity_name = \(name)
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
                DELETE FROM delivery_stamps s WHERE s.push_id IN (SELECT push_id FROM old)
                RETURNING s.push_id, s.apns_timestamp, s.push_seq, s.delivered_at, s.instance_ids
            ),
            covered AS (
                SELECT x.id FROM delivery_stamps s, unnest(s.instance_ids) AS x(id)
                WHERE s.push_id IN (SELECT p.push_id FROM pending p, newest n
                                    WHERE (p.apns_timestamp, p.push_seq) >= (n.apns_timestamp, n.push_seq))
            ),
            uncovered AS (
                SELECT DISTINCT ON (x.id) x.id, t.push_id, t.apns_timestamp, t.push_seq, t.delivered_at
                FROM taken t, unnest(t.instance_ids) AS x(id)
                WHERE NOT EXISTS (SELECT 1 FROM covered c WHERE c.id = x.id)
                ORDER BY x.id, t.apns_timestamp DESC, t.push_seq DESC
            ),
            stamped AS (\(unescaped: Self.stampUpdate(from: "uncovered"))
                RETURNING 1
            ),
            gone AS (DELETE FROM delivery_stamp_pushes WHERE push_id IN (SELECT push_id FROM old))
            SELECT (SELECT count(*) FROM taken)::int8, (SELECT count(*) FROM stamped)::int8
            """
        var deadlocks = 0
        while true {
            do {
                return try await self.database.transaction { connection in
                    // One settle of a name at a time: the push's end and the recurring run both come (a second one
                    // would wait for the first's row locks, then hash the ids again for nothing).
                    let key = "\(appID):\(name)"
                    let lock = try await connection.query(
                        "SELECT pg_try_advisory_xact_lock(hashtextextended(\(key), 0))", logger: self.database.logger)
                    for try await locked in lock.decode(Bool.self) where !locked { return (0, 0) }
                    // The ids of a million instances: hashed in memory rather than in batches on disk.
                    try await connection.query("SET LOCAL work_mem = '64MB'", logger: self.database.logger)
                    let rows = try await connection.query(statement, logger: self.database.logger)
                    for try await (taken, stamped) in rows.decode((Int64, Int64).self) {
                        return (Int(taken), Int(stamped))
                    }
                    return (0, 0)
                }
            } catch  where error.isDeadlock && deadlocks < 3 {
                deadlocks += 1  // rolled back as a whole: the rows are still pending
            }
        }
    }

    /// Folds the pending rows of names that have no active instance left and no push of theirs unsettled (an `end`
    /// sent to all of them, say): nothing newer will reach those instances, and a tap on one that is still on the Lock
    /// Screen is attributed to its last push.
    func foldStampsOfNamesWithoutActiveInstances() async throws -> Int {
        try await self.fold(
            """
            SELECT s.id FROM delivery_stamps s
            WHERE (s.app_id, s.activity_name) IN (
                SELECT dp.app_id, dp.activity_name FROM delivery_stamp_pushes dp
                WHERE NOT EXISTS (SELECT 1 FROM live_activities l
                                  WHERE l.app_id = dp.app_id AND l.name = dp.activity_name AND l.state = 'active')
                  AND NOT EXISTS (SELECT 1 FROM delivery_stamp_pushes o LEFT JOIN pushes p ON p.id = o.push_id
                                  WHERE o.app_id = dp.app_id AND o.activity_name = dp.activity_name
                                    AND NOT \(unescaped: Self.settled("o")))
            )
            """)
    }
}
