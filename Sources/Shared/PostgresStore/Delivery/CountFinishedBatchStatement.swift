import Foundation
import PostgresDatabase
import PostgresNIO

/// Counts a finished batch on its push, moves `targeted` by the batch's correction, and marks the push done with its
/// last batch (`DeliveryLedger.finishBatch`). Answers whether that was the last one while other pushes of its name
/// have stamps pending. The time comes from `clock`: Citus takes no `now()` inside a `CASE` in an update.
struct CountFinishedBatchStatement: NamedStatement {
    static let name = "lagw_count_finished_batch_v3"
    static let sql = """
        WITH clock AS (SELECT now() AS now)
        UPDATE pushes SET batches_done = batches_done + 1, targeted = targeted + $2::int8,
            state = CASE WHEN batches_done + 1 >= batches_total AND state = 'sending' THEN 'done' ELSE state END,
            finished_at = CASE WHEN batches_done + 1 >= batches_total AND state = 'sending' THEN k.now
                               ELSE finished_at END
        FROM clock k
        WHERE id = $1::uuid AND app_id = $3::int8
        RETURNING coalesce(batches_done = batches_total, false)
            AND EXISTS (SELECT 1 FROM delivery_stamp_pushes dp
                        WHERE dp.app_id = pushes.app_id AND dp.activity_name = pushes.activity_name
                          AND dp.push_id <> pushes.id) AS fold_others
        """

    struct Row {
        /// The push's last batch finished and other pushes of its name have stamps pending.
        var foldOthers: Bool
    }

    static func prepared(pushID: UUID, appID: Int64, targetsMoved: Int64) -> PreparedNamedStatement<Self> {
        var binds = PostgresBindings(capacity: 3)
        binds.append(pushID)
        binds.append(targetsMoved)
        binds.append(appID)
        return Self.prepared(bindings: binds)
    }

    static func decode(_ row: PostgresRow) throws -> Row { Row(foldOthers: try row.decode(Bool.self)) }
}
