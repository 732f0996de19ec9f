import Foundation
import Hummingbird
import LiveActivitiesCore
import Metrics
import PostgresStore

/// Push-to-start tokens and tracked live-activity instances of one channel (device API; the master secret works
/// too). Each call is one transaction; retries are harmless.
struct ActivityRoutes {
    let activities: any ActivityStore
    let access: ChannelAccess
    let bodyLimit: Int
    var metrics: any MetricsFactory = NOOPMetricsHandler.instance

    /// Ends the device reported, by `reason` (`ended`, `dismissed`): each counted once, when recorded.
    static let deviceEndsMetric = "gateway_live_activity_device_ends_total"

    func register(device: RouterGroup<GatewayContext>) {
        device.put("channels/{channel_id}/push-to-start/{attributes_type}", use: self.setPushToStart)
        device.delete("channels/{channel_id}/push-to-start/{attributes_type}", use: self.deletePushToStart)
        device.post("channels/{channel_id}/live-activities/reconcile", use: self.reconcile)
        device.put("channels/{channel_id}/live-activities/{name}", use: self.track)
        device.delete("channels/{channel_id}/live-activities/{name}", use: self.untrack)
    }

    struct Count: Encodable, Sendable {
        var count: Int
        var key: String
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: AnyCodingKey.self)
            try c.encode(self.count, forKey: AnyCodingKey(stringValue: self.key))
        }
    }

    @Sendable func setPushToStart(_ request: Request, context: GatewayContext) async throws -> OKResult {
        let tenant = try context.requireTenant()
        let (channelID, type) = (try await self.access.channelID(request, context), try Self.attributesType(context))
        let body = try await request.decodeJSON(PushToStartRegistration.self, limit: self.bodyLimit)
        let result = try await self.activities.setPushToStart(
            appID: tenant.appID, channelID: channelID, attributesType: type, body)
        return OKResult(result.rawValue, status: result == .created ? .created : .ok)
    }

    @Sendable func deletePushToStart(_ request: Request, context: GatewayContext) async throws -> OK<Count> {
        let tenant = try context.requireTenant()
        let (channelID, type) = (try await self.access.channelID(request, context), try Self.attributesType(context))
        let deleted = try await self.activities.deletePushToStart(
            appID: tenant.appID, channelID: channelID, attributesType: type)
        return OK(Count(count: deleted, key: "deleted"))
    }

    @Sendable func track(_ request: Request, context: GatewayContext) async throws -> OKResult {
        let tenant = try context.requireTenant()
        let (channelID, name) = (try ChannelRoutes.channelID(context), try Self.name(context))
        let body = try await request.decodeJSON(ActivityTracking.self, limit: self.bodyLimit)
        // The channel's secret is checked by the track statement itself (no round trip of its own on the hot path).
        let decision = try await self.activities.track(
            appID: tenant.appID, channelID: channelID, name: name, body, proof: ChannelAccess.proof(request, tenant))
        let created = decision == .start || { if case .replace = decision { true } else { false } }()
        return OKResult(decision.result, status: created ? .created : .ok)
    }

    struct Ended: Encodable, Sendable { var ended: Int, recorded: Bool }

    /// `?system_activity_id=&reason=ended|dismissed&at=<epoch s>` (`ActivityEnd`), all optional.
    @Sendable func untrack(_ request: Request, context: GatewayContext) async throws -> OK<Ended> {
        let tenant = try context.requireTenant()
        let query = request.uri.queryParameters
        let end = try ActivityEnd(query: { query.get($0) }, now: Date())
        let (channelID, name) = (try await self.access.channelID(request, context), try Self.name(context))
        let result = try await self.activities.untrack(appID: tenant.appID, channelID: channelID, name: name, end)
        if result.isNew {
            Counter(label: Self.deviceEndsMetric, dimensions: [("reason", end.reason.rawValue)], factory: self.metrics)
                .increment()
        }
        return OK(Ended(ended: result.ended, recorded: result.recorded))
    }

    @Sendable func reconcile(_ request: Request, context: GatewayContext) async throws -> OK<Count> {
        let tenant = try context.requireTenant()
        let channelID = try await self.access.channelID(request, context)
        let body = try await request.decodeJSON(ActivityReconciliation.self, limit: self.bodyLimit)
        let ended = try await self.activities.reconcile(
            appID: tenant.appID, channelID: channelID, keeping: body.systemActivityIDs,
            attributesTypes: body.attributesTypes)
        return OK(Count(count: ended, key: "ended"))
    }

    static func attributesType(_ context: GatewayContext) throws -> String {
        let type = context.parameters.get("attributes_type") ?? ""
        try RegistryRules.attributesType(type, path: "attributes_type")
        return type
    }

    static func name(_ context: GatewayContext) throws -> String {
        let name = context.parameters.get("name") ?? ""
        try RegistryRules.activityName(name, path: "name")
        return name
    }
}
