import Foundation
import Hummingbird
import LiveActivitiesCore
import PostgresStore

/// Device channels: registration, update and forgetting (device API); lookup and tags (server API).
struct ChannelRoutes {
    let channels: any ChannelStore
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
        enum CodingKeys: String, CodingKey { case channelID = "channel_id" }
    }

    @Sendable func create(_ request: Request, context: GatewayContext) async throws -> OK<Registered> {
        let tenant = try context.requireTenant()
        let body = try await request.decodeJSON(ChannelRegistration.self, limit: self.bodyLimit)
        guard body.installID != nil else {
            throw APIError.validation(ValidationError(path: "channel.install_id", rule: "is required"))
        }
        let (id, created) = try await self.channels.register(appID: tenant.appID, body)
        return OK(Registered(channelID: id.uuidString.lowercased()), status: created ? .created : .ok)
    }

    @Sendable func update(_ request: Request, context: GatewayContext) async throws -> OK<Registered> {
        let tenant = try context.requireTenant()
        let id = try Self.channelID(context)
        let body = try await request.decodeJSON(ChannelRegistration.self, limit: self.bodyLimit)
        guard try await self.channels.update(appID: tenant.appID, channelID: id, body) else {
            throw APIError.notFound("The channel")
        }
        return OK(Registered(channelID: id.uuidString.lowercased()))
    }

    struct Lookup: Encodable, Sendable { var channel: ChannelLookup }

    @Sendable func lookup(_ request: Request, context: GatewayContext) async throws -> OK<Lookup> {
        let tenant = try context.requireTenant()
        let id = try Self.channelID(context)
        guard var channel = try await self.channels.lookup(appID: tenant.appID, channelID: id) else {
            throw APIError.notFound("The channel")
        }
        (channel.liveActivities, channel.pushToStart) = try await self.activities.summaries(
            appID: tenant.appID, channelID: id)
        return OK(Lookup(channel: channel))
    }

    struct Forgotten: Encodable, Sendable { var removed: ForgetCounts }

    @Sendable func forget(_ request: Request, context: GatewayContext) async throws -> OK<Forgotten> {
        let tenant = try context.requireTenant()
        guard let counts = try await self.channels.forget(appID: tenant.appID, channelID: try Self.channelID(context))
        else { throw APIError.notFound("The channel") }
        context.logger.info("channel forgotten", metadata: ["live_activities": "\(counts.liveActivities)"])
        return OK(Forgotten(removed: counts))
    }

    @Sendable func removeNamedUser(_ request: Request, context: GatewayContext) async throws -> OK<Registered> {
        let tenant = try context.requireTenant()
        let id = try Self.channelID(context)
        guard try await self.channels.removeNamedUser(appID: tenant.appID, channelID: id) else {
            throw APIError.notFound("The channel")
        }
        return OK(Registered(channelID: id.uuidString.lowercased()))
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

    /// A malformed id cannot name a channel of this app: 404, like any other unknown id.
    static func channelID(_ context: GatewayContext) throws -> UUID {
        guard let raw = context.parameters.get("channel_id"), let id = UUID(uuidString: raw) else {
            throw APIError.notFound("The channel")
        }
        return id
    }
}
