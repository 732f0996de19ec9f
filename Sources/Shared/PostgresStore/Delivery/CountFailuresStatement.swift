import Foundation
import PostgresNIO

/// Adds a chunk's failures to the push's count per reason (`DeliveryLedger.record`).
struct CountFailuresStatement: NamedStatement {
    static let name = "lagw_count_failures_v2"
    static let sql = """
        INSERT INTO push_failure_counts (push_id, reason, count, push_created_at, app_id)
        SELECT $1::uuid, x.r, x.n, p.created_at, p.app_id
        FROM (SELECT r, count(*) AS n FROM unnest($2::text[]) AS u(r) GROUP BY r) x,
             (SELECT created_at, app_id FROM pushes WHERE id = $1::uuid) p
        ON CONFLICT (push_id, reason, push_created_at, app_id)
            DO UPDATE SET count = push_failure_counts.count + excluded.count
        """

    static func query(pushID: UUID, reasons: [String]) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 2)
        binds.append(pushID)
        binds.append(reasons)
        return PostgresQuery(unsafeSQL: Self.sql, binds: binds)
    }
}
