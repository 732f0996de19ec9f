import Foundation
import LiveActivitiesCore

extension PushForDelivery {
    /// What a fan-out job carries of its push (`PushFanoutJob`), as `PostgresPushStore` encodes it with the insert:
    /// the columns `DeliveryLedger.push(_:)` reads but the state, which the first chunk's statement checks anyway,
    /// and the acceptance order, which PostgreSQL assigns.
    public struct Snapshot: Codable, Sendable, Equatable {
        var event: String
        var name: String?
        var attributesType: String?
        var audience: Audience
        /// The APNs body, base64.
        var payload: String
        var timestamp: Int64
        var priority: Int16

        enum CodingKeys: String, CodingKey {
            case event, name, audience, payload, timestamp, priority
            case attributesType = "attributes_type"
        }

        init(_ push: PushRequest, body: [UInt8], timestamp: Int64) {
            self.event = push.liveActivity.event.rawValue
            self.name = push.liveActivity.name
            self.attributesType = push.liveActivity.attributesType
            self.audience = push.audience
            self.payload = Data(body).base64EncodedString()
            self.timestamp = timestamp
            self.priority = Int16(push.liveActivity.priority)
        }
    }
}
