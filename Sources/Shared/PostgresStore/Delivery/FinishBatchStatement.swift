import Foundation
import PostgresDatabase
import PostgresNIO

/// Marks a queued batch of the run `$3` done (`DeliveryLedger.finishBatch`); answers how much its `targets` moved
/// (an estimated batch's become what it read). No row when the batch was not queued or another run claimed it.
struct FinishBatchStatement: NamedStatement {
    static let name = "lagw_finish_batch_v2"
    static let sql = """
        UPDATE push_batches b
        SET state = 'done',
            skipped = b.skipped + CASE WHEN b.targets_estimated THEN 0 ELSE greatest(b.targets - b.processed, 0) END,
            targets = CASE WHEN b.targets_estimated THEN b.processed ELSE b.targets END
        FROM (SELECT targets FROM push_batches
              WHERE push_id = $1::uuid AND app_id = $4::int8 AND seq = $2::int4) o
        WHERE b.push_id = $1::uuid AND b.app_id = $4::int8 AND b.seq = $2::int4 AND b.state = 'queued'
          AND b.runner IS NOT DISTINCT FROM $3::uuid
        RETURNING (b.targets - o.targets)::int8 AS moved
        """

    struct Row {
        var targetsMoved: Int64
    }

    static func prepared(pushID: UUID, appID: Int64, seq: Int32, runner: UUID?) -> PreparedNamedStatement<Self> {
        var binds = PostgresBindings(capacity: 4)
        binds.append(pushID)
        binds.append(seq)
        binds.append(runner)
        binds.append(appID)
        return Self.prepared(bindings: binds)
    }

    static func decode(_ row: PostgresRow) throws -> Row { Row(targetsMoved: try row.decode(Int64.self)) }
}
