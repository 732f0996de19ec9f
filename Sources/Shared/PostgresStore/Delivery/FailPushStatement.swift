import Foundation
import PostgresNIO

/// A sending push failed by a configuration error APNs answered (`DeliveryLedger.record`).
struct FailPushStatement: NamedStatement {
    static let name = "lagw_fail_push_v1"
    static let sql = """
        UPDATE pushes SET state = 'failed', failure_reason = $2::text, finished_at = now()
        WHERE id = $1::uuid AND state = 'sending'
        """

    static func query(pushID: UUID, reason: String) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 2)
        binds.append(pushID)
        binds.append(reason)
        return PostgresQuery(unsafeSQL: Self.sql, binds: binds)
    }
}
