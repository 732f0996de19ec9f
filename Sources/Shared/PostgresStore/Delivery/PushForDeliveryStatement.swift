import Foundation
import LiveActivitiesCore
import NIOCore
import PostgresDatabase
import PostgresNIO

/// What a worker reads of a push to deliver it (`DeliveryLedger.push(_:)`).
struct PushForDeliveryStatement: NamedStatement {
    static let name = "lagw_push_for_delivery_v1"
    static let sql = """
        SELECT app_id, state, event, activity_name, attributes_type, audience::text, apns_payload, apns_timestamp,
               seq, apns_priority, delivery, broadcast_channel_id, apns_expiration,
               coalesce((request #>> '{notification,ios,live_activity,restart}')::boolean, false)
        FROM pushes WHERE id = $1::uuid
        """

    struct Row {
        var appID: Int64
        var state: PushState
        var event: String
        var name: String?
        var attributesType: String?
        var audience: String
        var payload: ByteBuffer
        var timestamp: Int64
        var seq: Int64
        var priority: Int16
        var delivery: String
        var broadcastChannelID: String?
        var expiration: Int64?
        var restart: Bool
    }

    static func prepared(pushID: UUID) -> PreparedNamedStatement<Self> {
        var binds = PostgresBindings(capacity: 1)
        binds.append(pushID)
        return Self.prepared(bindings: binds)
    }

    static func decode(_ row: PostgresRow) throws -> Row {
        let cells = try row.decode(
            (
                Int64, PushState, String, String?, String?, String, ByteBuffer, Int64, Int64, Int16, String, String?,
                Int64?, Bool
            ).self)
        return Row(
            appID: cells.0, state: cells.1, event: cells.2, name: cells.3, attributesType: cells.4,
            audience: cells.5, payload: cells.6, timestamp: cells.7, seq: cells.8, priority: cells.9,
            delivery: cells.10, broadcastChannelID: cells.11, expiration: cells.12, restart: cells.13)
    }
}
