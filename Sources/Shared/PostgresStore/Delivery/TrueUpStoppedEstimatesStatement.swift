import Foundation
import PostgresNIO

/// Trues up the estimated sizes of a push's stopped batches, all of them or batch `$2` alone
/// (`DeliveryLedger.trueUpStoppedEstimates`).
struct TrueUpStoppedEstimatesStatement: NamedStatement {
    static let name = "lagw_true_up_stopped_estimates_v1"
    static let sql = """
        WITH locked AS (
            SELECT seq, targets FROM push_batches
            WHERE push_id = $1::uuid AND state = 'stopped' AND targets_estimated
              AND ($2::int4 IS NULL OR seq = $2::int4)
            FOR UPDATE
        ),
        trued_up AS (
            UPDATE push_batches b SET targets = b.processed + b.canceled
            FROM locked
            WHERE b.push_id = $1::uuid AND b.seq = locked.seq AND b.targets <> b.processed + b.canceled
            RETURNING (b.processed + b.canceled - locked.targets)::int8 AS moved
        )
        UPDATE pushes SET targeted = targeted + (SELECT sum(moved) FROM trued_up)
        WHERE id = $1::uuid AND EXISTS (SELECT 1 FROM trued_up)
        """

    static func query(pushID: UUID, seq: Int32?) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 2)
        binds.append(pushID)
        binds.append(seq)
        return PostgresQuery(unsafeSQL: Self.sql, binds: binds)
    }
}
