import Foundation
import PostgresNIO

/// A fan-out's claim of its push (`DeliveryLedger.recordFanout`): `sending` with its batch count and targeted total
/// (`done` at once when there are no batches). No row when another run already claimed it.
struct ClaimFanoutStatement: NamedStatement {
    static let name = "lagw_claim_fanout_v1"
    static let sql = """
        UPDATE pushes SET state = CASE WHEN $2::int4 = 0 THEN 'done' ELSE 'sending' END,
            batches_total = $2::int4, targeted = $3::int8, started_at = now(),
            finished_at = CASE WHEN $2::int4 = 0 THEN now() END
        WHERE id = $1::uuid AND state = 'queued'
        RETURNING id
        """

    static func query(pushID: UUID, batches: Int32, targeted: Int64) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 3)
        binds.append(pushID)
        binds.append(batches)
        binds.append(targeted)
        return PostgresQuery(unsafeSQL: Self.sql, binds: binds)
    }
}
