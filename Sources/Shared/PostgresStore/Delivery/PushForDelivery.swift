import Foundation
import LiveActivitiesCore
import Logging
import NIOCore
import PostgresNIO

/// What a worker needs to know about a push to send it.
public struct PushForDelivery: Sendable {
    public var id: UUID
    public var appID: Int64
    public var state: PushState
    public var targets: PushTargets
    public var payload: ByteBuffer
    public var timestamp: Int64
    /// The order in which the gateway accepted it (`pushes.seq`).
    public var seq: Int64
    /// The APNs priority: 10 (immediate), 5 (power considerate), or 1 (a broadcast's low priority).
    public var priority: Int16
    /// By tokens, as one broadcast, or both (decided when the push was accepted).
    public var route: DeliveryRoute = .tokens
    /// `apns-expiration` (epoch seconds), when the push sets one.
    public var expiration: Int64?

    /// Its place in the order a device applies payloads in.
    public var order: PushOrder { PushOrder(timestamp: self.timestamp, seq: self.seq) }
}

extension PushForDelivery {
    /// The push as its fan-out job's snapshot tells it, still queued. A snapshot of an earlier build has no acceptance
    /// order: the push then has 0, which `DeliveryLedger.unfinished(sameNameAs:logger:)` reads. Nil when the body is
    /// not base64.
    public init?(id: UUID, appID: Int64, snapshot: Snapshot) {
        guard let body = Data(base64Encoded: snapshot.payload) else { return nil }
        self.init(
            id: id, appID: appID, state: .queued, event: snapshot.event, name: snapshot.name,
            attributesType: snapshot.attributesType, audience: snapshot.audience, payload: ByteBuffer(bytes: body),
            timestamp: snapshot.timestamp, seq: snapshot.seq ?? 0, priority: snapshot.priority,
            route: DeliveryRoute(name: snapshot.delivery ?? "tokens", channelID: snapshot.channelID) ?? .tokens,
            restart: snapshot.restart ?? false, expiration: snapshot.expiration)
    }

    /// The one place a push for delivery is put together, from its row (`DeliveryLedger.push`) or its job's snapshot:
    /// its targets follow its route (a push that also goes as a broadcast leaves out the channel's followers).
    init(
        id: UUID, appID: Int64, state: PushState, event: String, name: String?, attributesType: String?,
        audience: Audience, payload: ByteBuffer, timestamp: Int64, seq: Int64, priority: Int16,
        route: DeliveryRoute = .tokens, restart: Bool = false, expiration: Int64? = nil
    ) {
        var targets = PushTargets(
            appID: appID, event: .init(rawValue: event) ?? .update, name: name, attributesType: attributesType,
            audience: audience)
        targets.broadcastChannelID = route.excludedChannel
        targets.restart = restart
        self.init(
            id: id, appID: appID, state: state, targets: targets, payload: payload, timestamp: timestamp, seq: seq,
            priority: priority)
        self.route = route
        self.expiration = expiration
    }
}
