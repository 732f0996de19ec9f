import Foundation
import PostgresNIO

/// The push-to-start tokens a channel lookup lists, as a prepared statement (see `ChannelLookupStatement`). A token is
/// `suspect` when its last starts since it was registered again were accepted and none started.
struct PushToStartSummariesStatement: ChannelScopedStatement, NamedStatement {
    static let name = "lagw_push_to_start_summaries_v1"
    static let sql = """
        SELECT p.attributes_type,
               CASE WHEN p.state = 'active' AND k.suspect THEN 'suspect' ELSE p.state END,
               p.updated_at, p.registered_at,
               (SELECT CASE WHEN s.outcome = 'started' THEN 'started'
                            WHEN s.window_until <= now() THEN 'not_started' ELSE 'pending' END
                FROM start_attempts s WHERE s.channel_id = p.channel_id AND s.token = p.token
                ORDER BY s.window_until DESC LIMIT 1)
        FROM push_to_start_tokens p JOIN apps a ON a.id = p.app_id
        CROSS JOIN LATERAL (
            SELECT count(*) = a.suspect_after_starts
                   AND coalesce(bool_and(x.outcome = 'pending' AND x.window_until <= now()), false) AS suspect
            FROM (SELECT s.outcome, s.window_until FROM start_attempts s
                  WHERE s.channel_id = p.channel_id AND s.window_until > p.registered_again_at
                    AND s.token = p.token AND s.accepted_at > p.registered_again_at
                  ORDER BY s.window_until DESC LIMIT a.suspect_after_starts) x
        ) k
        WHERE p.channel_id = $1 AND p.app_id = $2 ORDER BY p.attributes_type
        """
    struct Row: Sendable {
        var attributesType: String
        /// `suspect` for an active token whose last starts all went unanswered.
        var state: String
        var updated: Date
        var registered: Date
        /// The outcome of the token's last start: started, not_started or pending (nil: none).
        var lastStart: String?
    }

    var channelID: UUID
    var appID: Int64

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (type, state, updated, registered, lastStart) = try row.decode((String, String, Date, Date, String?).self)
        return Row(attributesType: type, state: state, updated: updated, registered: registered, lastStart: lastStart)
    }
}
