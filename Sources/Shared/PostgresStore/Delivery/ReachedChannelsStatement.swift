import Foundation
import LiveActivitiesCore
import PostgresNIO

/// The channels among `$1` that an audience of app `$2` reaches (`DeliveryLedger.channels(_:reachedBy:appID:)`,
/// where the audience is any of the superseding pushes' audiences).
enum ReachedChannelsStatement: AudienceStatement {
    static let name = "lagw_reached_channels"
    static let app = "$2"
    static let template = "SELECT t.channel_id FROM unnest($1::uuid[]) AS t(channel_id) WHERE {audience}"

    static func query(channels: [UUID], appID: Int64, audience: Audience) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 2)
        binds.append(channels)
        binds.append(appID)
        return Self.query(binds, audience: audience)
    }

    struct Row {
        var channelID: UUID

        init(_ row: PostgresRow) throws { self.channelID = try row.decode(UUID.self) }
    }
}
