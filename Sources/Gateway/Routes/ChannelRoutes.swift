import Foundation
import Hummingbird
import LiveActivitiesCore
import PostgresStore

/// Device channels: registration, update and forgetting (device API); lookup and tags (server API).
struct ChannelRoutes {
    let channels: any ChannelStore
    var access: ChannelAccess { ChannelAccess(channels: self.channels) }
    let activities: any ActivityStore
    let bodyLimit: Int

    func register(server: RouterGroup<GatewayContext>, device: RouterGroup<GatewayContext>) {
        device.post("channels", use: self.create)
        device.put("channels/{channel_id}", use: self.update)
        device.delete("channels/{channel_id}", use: self.forget)
        device.delete("channels/{channel_id}/named-user", use: self.removeNamedUser)
        server.get("channels/{channel_id}", use: self.lookup)
        server.post("channels/tags", use: self.changeTags)
    }

    struct Registered: Encodable, Sendable {
        var channelID: String
        /// Returned once, when the channel is created (or a channel from before channel secrets is claimed).
        var channelSecret: String?
        enum CodingKeys: String, CodingKey {
            case channelID = "channel_id"
            case channelSecret = "channel_secret"
        }

        init(_ id: UUID, secret: String? = nil) {
            self.channelID = id.uuidString.lowercased()
            self.channelSecret = secret
        }
    }

    @Sendable func create(_ request: Request, context: GatewayContext) async throws -> OK<Registered> {
        let tenant = try context.requireTenant()
        let body = try await request.decodeJSON(ChannelRegistration.self, limit: self.bodyLimit)
        try Self.permit(body, tenant)
        guard body.installID != nil else {
            throw APIError.validation(ValidationError(path: "channel.install_id", rule: "is required"))
        }
        switch try await self.channels.register(
            appID: tenant.appID, body, proof: ChannelAccess.proof(request, tenant))
        {
        case .created(let id, let secret): return OK(Registered(id, secret: secret), status: .created)
        case .updated(let id): return OK(Registered(id))
        case .claimed(let id, let secret): return OK(Registered(id, secret: secret))
        case .refused: throw APIError.installIDTaken
        }
    }

    @Sendable func update(_ request: Request, context: GatewayContext) async throws -> OK<Registered> {
        let tenant = try context.requireTenant()
        let id = try await self.access.channelID(request, context)
        let body = try await request.decodeJSON(ChannelRegistration.self, limit: self.bodyLimit)
        try Self.permit(body, tenant)
        guard try await self.channels.update(appID: tenant.appID, channelID: id, body) else {
            throw APIError.notFound("The channel", path: "channel_id")
        }
        return OK(Registered(id))
    }

    struct Lookup: Encodable, Sendable { var channel: ChannelLookup }

    @Sendable func lookup(_ request: Request, context: GatewayContext) async throws -> OK<Lookup> {
        let tenant = try context.requireTenant()
        let id = try Self.channelID(context)
        guard var channel = try await self.channels.lookup(appID: tenant.appID, channelID: id) else {
            throw APIError.notFound("The channel", path: "channel_id")
        }
        (channel.liveActivities, channel.pushToStart) = try await self.activities.summaries(
            appID: tenant.appID, channelID: id)
        return OK(Lookup(channel: channel))
    }

    struct Forgotten: Encodable, Sendable { var removed: ForgetCounts }

    @Sendable func forget(_ request: Request, context: GatewayContext) async throws -> OK<Forgotten> {
        let tenant = try context.requireTenant()
        let id = try await self.access.channelID(request, context)
        guard let counts = try await self.channels.forget(appID: tenant.appID, channelID: id)
        else { throw APIError.notFound("The channel", path: "channel_id") }
        context.logger.info("channel forgotten", metadata: ["live_activities": "\(counts.liveActivities)"])
        return OK(Forgotten(removed: counts))
    }

    @Sendable func removeNamedUser(_ request: Request, context: GatewayContext) async throws -> OK<Registered> {
        let tenant = try context.requireTenant()
        let id = try await self.access.channelID(request, context)
        guard try await self.channels.removeNamedUser(appID: tenant.appID, channelID: id) else {
            throw APIError.notFound("The channel", path: "channel_id")
        }
        return OK(Registered(id))
    }

    struct TagsChanged: Encodable, Sendable {
        var channelsUpdated: Int
        var unknownChannels: [String]
        enum CodingKeys: String, CodingKey {
            case channelsUpdated = "channels_updated"
            case unknownChannels = "unknown_channels"
        }
    }

    /// Airship's `POST /api/channels/tags`. Unknown channel ids are listed, not fatal, as Airship warns.
    @Sendable func changeTags(_ request: Request, context: GatewayContext) async throws -> OK<TagsChanged> {
        let tenant = try context.requireTenant()
        let change = try await request.decodeJSON(TagChange.self, limit: self.bodyLimit)
        let (updated, unknown) = try await self.channels.changeTags(appID: tenant.appID, change)
        return OK(TagsChanged(channelsUpdated: updated, unknownChannels: unknown.map { $0.uuidString.lowercased() }))
    }

    /// The app secret writes only what the app's device permissions allow: 403 naming the first field beyond them.
    static func permit(_ registration: ChannelRegistration, _ tenant: Tenant) throws {
        guard tenant.role == .device, let refusal = tenant.devicePermissions.refusal(of: registration) else { return }
        throw APIError.deviceForbidden(refusal)
    }

    /// A malformed id cannot name a channel of this app: 404, like any other unknown id.
    static func channelID(_ context: GatewayContext) throws -> UUID {
        guard let raw = context.parameters.get("channel_id"), let id = UUID(uuidString: raw) else {
            throw APIError.notFound("The channel", path: "channel_id")
        }
        return id
    }
}
