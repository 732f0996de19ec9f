import Foundation
import PostgresNIO

/// Instances whose push tokens APNs declared dead in a chunk of an update or an end (`DeliveryLedger.record`); a
/// token registered again since the chunk was sent stays.
struct InvalidateInstanceTokensStatement: NamedStatement {
    static let name = "lagw_invalidate_instance_tokens_v1"
    static let sql = """
        UPDATE live_activities l
        SET state = 'invalid', invalid_reason = x.reason, invalidated_at = now()
        FROM unnest($1::int8[], $2::text[], $3::text[]) AS x(id, token, reason)
        WHERE l.id = x.id AND l.push_token = x.token AND l.state = 'active'
          AND l.token_updated_at < $4::timestamptz
        """

    static func query(instances: [Int64], tokens: [String], reasons: [String], sentAt: Date) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 4)
        binds.append(instances)
        binds.append(tokens)
        binds.append(reasons)
        binds.append(sentAt)
        return PostgresQuery(unsafeSQL: Self.sql, binds: binds)
    }
}
