import Foundation
import PostgresNIO

/// Adds a chunk's failures to the push's count per reason (`DeliveryLedger.record`).
struct CountFailuresStatement: NamedStatement {
    static let name = "lagw_count_failures_v1"
    static let sql = """
        INSERT INTO push_failure_counts (push_id, reason, count, push_created_at)
        SELECT $1::uuid, r, count(*), (SELECT created_at FROM pushes WHERE id = $1::uuid)
        FROM unnest($2::text[]) AS x(r) GROUP BY r
        ON CONFLICT (push_id, reason, push_created_at) DO UPDATE SET count = push_failure_counts.count + excluded.count
        """

    static func query(pushID: UUID, reasons: [String]) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 2)
        binds.append(pushID)
        binds.append(reasons)
        return PostgresQuery(unsafeSQL: Self.sql, binds: binds)
    }
}
