import Foundation
import LiveActivitiesCore
import PostgresNIO

/// The unfinished pushes of a push's app and name (`DeliveryLedger.unfinished(sameNameAs:logger:)`): queued or
/// sending, not starts, and not surely disjoint from the push, with the push's own row for its acceptance order.
/// Pushes whose audiences cannot meet the push's (one channel each, as device-scheduled updates are) are left out: a
/// thousand of them firing together under one name must not compare a million pairs. One variant per kind of audience
/// that can rule others out (`Audience.surelyDisjoint`, which the first chunk's statement embeds: the two must agree).
/// Rows: `Row`.
enum UnfinishedStatements {
    static let all: [any NamedStatement.Type] = [OfName.self, BesideChannels.self, BesideNamedUser.self]

    /// Of app `$1`'s name `$2`, whatever their audiences: the push's audience rules none out (its own row is one of
    /// them).
    enum OfName: NamedStatement {
        static let name = "lagw_unfinished_of_name"
        static let sql = """
            SELECT id, event, apns_timestamp, seq FROM pushes
            WHERE app_id = $1 AND activity_name = $2 AND state IN ('queued', 'sending') AND event <> 'start'
            """
    }

    /// Of app `$1`'s name `$2`, for push `$3` to the channels `$4` (lowercase ids): not those stored as a list of
    /// channels that shares none of them.
    enum BesideChannels: NamedStatement {
        static let name = "lagw_unfinished_beside_channels"
        static let sql = """
            SELECT id, event, apns_timestamp, seq FROM pushes
            WHERE app_id = $1 AND activity_name = $2
              AND state IN ('queued', 'sending') AND event <> 'start'
              AND (id = $3
                   OR NOT (audience ? 'ios_channel' AND NOT ((audience -> 'ios_channel') ?| $4::text[])))
            """
    }

    /// Of app `$1`'s name `$2`, for push `$3` to named user `$4`: not those to another single named user (a channel has
    /// one). `?` first: a stored audience without the key (all, a tag, an `and`) gives false, not NULL, which the
    /// `NOT (...)` around it would turn into a dropped row.
    enum BesideNamedUser: NamedStatement {
        static let name = "lagw_unfinished_beside_named_user"
        static let sql = """
            SELECT id, event, apns_timestamp, seq FROM pushes
            WHERE app_id = $1 AND activity_name = $2
              AND state IN ('queued', 'sending') AND event <> 'start'
              AND (id = $3
                   OR NOT (audience ? 'named_user' AND jsonb_typeof(audience -> 'named_user') = 'string'
                           AND audience ->> 'named_user' <> $4))
            """
    }

    /// The statement for `push` (not a start, with a name `name`): the variant its audience chooses.
    static func query(for push: PushForDelivery, name: String) throws -> PostgresQuery {
        switch push.targets.audience {
        case .channels(let ids):
            return try BesideChannels.query(push.appID, name, push.id, ids.map { $0.uuidString.lowercased() })
        case .namedUser(let user):
            return try BesideNamedUser.query(push.appID, name, push.id, user)
        default:
            return try OfName.query(push.appID, name)
        }
    }

    /// An unfinished push (or the push itself).
    struct Row {
        var id: UUID
        /// `LiveActivityNotification.Event`'s raw value.
        var event: String
        var order: PushOrder

        init(_ row: PostgresRow) throws {
            let (id, event, timestamp, seq) = try row.decode((UUID, String, Int64, Int64).self)
            (self.id, self.event, self.order) = (id, event, PushOrder(timestamp: timestamp, seq: seq))
        }
    }
}
