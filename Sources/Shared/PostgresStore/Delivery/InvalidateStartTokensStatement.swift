import Foundation
import PostgresNIO

/// Push-to-start tokens APNs declared dead in a chunk of a start (`DeliveryLedger.record`); a token registered again
/// since the chunk was sent stays.
struct InvalidateStartTokensStatement: NamedStatement {
    static let name = "lagw_invalidate_start_tokens_v1"
    static let sql = """
        UPDATE push_to_start_tokens p
        SET state = 'invalid', invalid_reason = x.reason, invalidated_at = now()
        FROM unnest($1::uuid[], $2::text[], $3::text[]) AS x(channel_id, token, reason)
        WHERE p.channel_id = x.channel_id AND p.attributes_type = $4::text
          AND p.token = x.token AND p.state = 'active' AND p.updated_at < $5::timestamptz
        """

    static func query(
        channels: [UUID], tokens: [String], reasons: [String], attributesType: String, sentAt: Date
    ) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 5)
        binds.append(channels)
        binds.append(tokens)
        binds.append(reasons)
        binds.append(attributesType)
        binds.append(sentAt)
        return PostgresQuery(unsafeSQL: Self.sql, binds: binds)
    }
}
