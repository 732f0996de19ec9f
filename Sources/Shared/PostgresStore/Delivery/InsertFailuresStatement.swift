import Foundation
import PostgresNIO

/// A chunk's failed targets, one `push_failures` row each (`DeliveryLedger.record`); a status of 0 is none.
struct InsertFailuresStatement: NamedStatement {
    static let name = "lagw_insert_failures_v1"
    static let sql = """
        INSERT INTO push_failures (push_id, app_id, channel_id, token, status, reason, push_created_at)
        SELECT $1::uuid, $2::int8, c, t, nullif(s, 0), r, (SELECT created_at FROM pushes WHERE id = $1::uuid)
        FROM unnest($3::uuid[], $4::text[], $5::int4[], $6::text[]) AS x(c, t, s, r)
        """

    static func query(
        pushID: UUID, appID: Int64, channels: [UUID], tokens: [String], statuses: [Int32], reasons: [String]
    ) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 6)
        binds.append(pushID)
        binds.append(appID)
        binds.append(channels)
        binds.append(tokens)
        binds.append(statuses)
        binds.append(reasons)
        return PostgresQuery(unsafeSQL: Self.sql, binds: binds)
    }
}
