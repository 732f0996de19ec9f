import Foundation
import LiveActivitiesCore
import PostgresNIO

extension Audience {
    /// A predicate over the target row `t` (its `channel_id`) of app `app` (a bound parameter). Every selector is a
    /// set of channels, so none needs the channel row itself: a named user is a lookup in `channels_named_user`.
    /// A list of tags of one group, or of named users (Airship's implicit OR), is one lookup with `= ANY`.
    func predicate(_ sql: inout SQLBuilder, app: String) -> String {
        if let (tags, group) = self.tagList {
            return "EXISTS (SELECT 1 FROM channel_tags ct WHERE ct.channel_id = t.channel_id AND ct.app_id = t.app_id"
                + " AND ct.tag_group = \(sql.bind(group)) AND ct.tag = ANY(\(sql.bind(tags))::text[]))"
        }
        if let users = self.namedUserList {
            return "EXISTS (SELECT 1 FROM channels n WHERE n.id = t.channel_id AND n.app_id = \(app)"
                + " AND n.named_user_id = ANY(\(sql.bind(users))::text[]))"
        }
        switch self {
        case .all:
            return "TRUE"
        case .tag(let tag, let group):
            return "EXISTS (SELECT 1 FROM channel_tags ct WHERE ct.channel_id = t.channel_id AND ct.app_id = t.app_id"
                + " AND ct.tag_group = \(sql.bind(group)) AND ct.tag = \(sql.bind(tag)))"
        case .channels(let ids):
            return "t.channel_id = ANY(\(sql.bind(ids))::uuid[])"
        case .namedUser(let user):
            return "EXISTS (SELECT 1 FROM channels n WHERE n.id = t.channel_id AND n.app_id = \(app)"
                + " AND n.named_user_id = \(sql.bind(user)))"
        case .and(let list):
            return "(" + list.map { $0.predicate(&sql, app: app) }.joined(separator: " AND ") + ")"
        case .or(let list):
            return "(" + list.map { $0.predicate(&sql, app: app) }.joined(separator: " OR ") + ")"
        case .not(let inner):
            return "NOT (\(inner.predicate(&sql, app: app)))"
        }
    }
}

extension Audience {
    /// A predicate over a stored audience (the jsonb expression `column`) that holds when that audience surely reaches
    /// no channel this one reaches: two lists of channels that share none, two different named users (a channel has
    /// one). Nil when this audience is of another kind (then nothing is ruled out). A stored list of named users
    /// (`{"named_user": [...]}`) is of another kind too: only a stored single name is compared.
    func surelyDisjoint(_ sql: inout SQLBuilder, column: String) -> String? {
        switch self {
        case .channels(let ids):
            let listed = sql.bind(ids.map { $0.uuidString.lowercased() })
            return "(\(column) ? 'ios_channel' AND NOT ((\(column) -> 'ios_channel') ?| \(listed)::text[]))"
        case .namedUser(let user):
            // `?` first: a stored audience without the key (all, a tag, an `and`) gives false, not NULL, which a
            // `NOT (...)` around it would turn into a dropped row.
            return "(\(column) ? 'named_user' AND jsonb_typeof(\(column) -> 'named_user') = 'string'"
                + " AND \(column) ->> 'named_user' <> \(sql.bind(user)))"
        default:
            return nil
        }
    }
}
