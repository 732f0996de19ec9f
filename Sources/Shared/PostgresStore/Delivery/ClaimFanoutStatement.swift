import Foundation
import PostgresNIO

/// A fan-out's claim of its push (`DeliveryLedger.recordFanout`): `sending` with its batch count and targeted total
/// (`done` at once when there are no batches). No row when another run already claimed it. The push's app makes it a
/// statement of one shard on Citus, which refuses `now()` inside `CASE` in
/// an update: `finished_at` adds a `CASE` (NULL unless done) to `now()` instead.
struct ClaimFanoutStatement: NamedStatement {
    static let name = "lagw_claim_fanout_v2"
    static let sql = """
        UPDATE pushes SET state = CASE WHEN $2::int4 = 0 THEN 'done' ELSE 'sending' END,
            batches_total = $2::int4, targeted = $3::int8, started_at = now(),
            finished_at = now() + CASE WHEN $2::int4 = 0 THEN interval '0' END
        WHERE id = $1::uuid AND app_id = $4::int8 AND state = 'queued'
        RETURNING id
        """

    static func query(pushID: UUID, appID: Int64, batches: Int32, targeted: Int64) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 4)
        binds.append(pushID)
        binds.append(batches)
        binds.append(targeted)
        binds.append(appID)
        return PostgresQuery(unsafeSQL: Self.sql, binds: binds)
    }
}
