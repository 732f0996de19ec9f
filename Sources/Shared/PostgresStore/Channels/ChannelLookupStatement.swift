import Foundation
import PostgresNIO

/// The channel of `GET /api/channels/{id}`, with its tags, as a prepared statement: parsed and planned once per
/// connection. Unprepared, PostgreSQL spent most of a lookup parsing and planning (pgbench on this statement:
/// 0.199 ms a call simple, 0.101 ms prepared; `make chaos`'s overload showed base_yyparse and the planner on top).
struct ChannelLookupStatement: ChannelScopedStatement, NamedStatement {
    static let name = "lagw_channel_lookup_v2"
    static let sql = """
        SELECT c.opt_in, c.live_activities_enabled, c.named_user_id, c.locale, c.timezone, c.created_at,
               c.last_registration,
               coalesce(array_agg(t.tag_group ORDER BY t.tag_group, t.tag) FILTER (WHERE t.tag IS NOT NULL), '{}'),
               coalesce(array_agg(t.tag ORDER BY t.tag_group, t.tag) FILTER (WHERE t.tag IS NOT NULL), '{}')
        FROM channels c LEFT JOIN channel_tags t ON t.channel_id = c.id AND t.app_id = c.app_id
        WHERE c.id = $1 AND c.app_id = $2
        GROUP BY c.id, c.app_id
        """
    struct Row: Sendable {
        var optIn: Bool
        var liveActivitiesEnabled: Bool
        var namedUserID: String?
        var locale: String?
        var timezone: String?
        var created: Date
        var lastRegistration: Date
        /// The channel's tags, each with its group at the same index.
        var tagGroups: [String]
        var tags: [String]
    }

    var channelID: UUID
    var appID: Int64

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (optIn, enabled, namedUser, locale, timezone, created, last, groups, tags) = try row.decode(
            (Bool, Bool, String?, String?, String?, Date, Date, [String], [String]).self)
        return Row(
            optIn: optIn, liveActivitiesEnabled: enabled, namedUserID: namedUser, locale: locale, timezone: timezone,
            created: created, lastRegistration: last, tagGroups: groups, tags: tags)
    }
}
