import Foundation
import LiveActivitiesCore

extension PushForDelivery {
    /// What a fan-out job carries of its push (`PushFanoutJob`), as `PostgresPushStore` encodes it with the insert:
    /// the columns `DeliveryLedger.push(_:)` reads but the state, which the first chunk's statement checks anyway.
    public struct Snapshot: Codable, Sendable, Equatable {
        var event: String
        var name: String?
        var attributesType: String?
        var audience: Audience
        /// The APNs body, base64.
        var payload: String
        var timestamp: Int64
        var priority: Int16
        /// `DeliveryRoute.name` and its channel; nil in jobs of builds before broadcast (tokens).
        var delivery: String?
        var channelID: String?
        var expiration: Int64?
        var restart: Bool?
        /// The push's acceptance order (`pushes.seq`), which PostgreSQL assigns: the insert's statement writes it into
        /// the job (`PostgresPushStore.insertStatement`). Nil in jobs of earlier builds, whose handler reads it.
        public internal(set) var seq: Int64?

        enum CodingKeys: String, CodingKey {
            case event, name, audience, payload, timestamp, priority, delivery, expiration, restart, seq
            case attributesType = "attributes_type"
            case channelID = "channel_id"
        }

        init(_ push: PushRequest, body: [UInt8], timestamp: Int64, route: DeliveryRoute = .tokens) {
            self.delivery = route.name
            self.channelID = route.channelID
            self.expiration = push.liveActivity.expiration
            self.restart = push.liveActivity.restart ? true : nil
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
