import Foundation
import PostgresNIO

/// Stops a push's queued batches (`DeliveryLedger.stopBatches`); answers how many targets that cancels.
struct StopBatchesStatement: NamedStatement {
    static let name = "lagw_stop_batches_v1"
    static let sql = """
        WITH stopped AS (
            UPDATE push_batches SET state = 'stopped', canceled = greatest(targets - processed, 0)
            WHERE push_id = $1::uuid AND state = 'queued'
            RETURNING canceled
        )
        SELECT coalesce(sum(canceled), 0)::int8 AS canceled FROM stopped
        """

    struct Row {
        var canceled: Int64
    }

    static func query(pushID: UUID) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 1)
        binds.append(pushID)
        return PostgresQuery(unsafeSQL: Self.sql, binds: binds)
    }

    static func decode(_ row: PostgresRow) throws -> Row { Row(canceled: try row.decode(Int64.self)) }
}
