import Foundation
import Hummingbird
import Shared

/// Device channels: registration and update (device API), lookup (server API).
struct ChannelRoutes {
    let channels: any ChannelStore
    let bodyLimit: Int

    func register(server: RouterGroup<GatewayContext>, device: RouterGroup<GatewayContext>) {
        device.post("channels", use: self.create)
        device.put("channels/{channel_id}", use: self.update)
        server.get("channels/{channel_id}", use: self.lookup)
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
        guard let channel = try await self.channels.lookup(appID: tenant.appID, channelID: id) else {
            throw APIError.notFound("The channel")
        }
        return OK(Lookup(channel: channel))
    }

    /// A malformed id cannot name a channel of this app: 404, like any other unknown id.
    static func channelID(_ context: GatewayContext) throws -> UUID {
        guard let raw = context.parameters.get("channel_id"), let id = UUID(uuidString: raw) else {
            throw APIError.notFound("The channel")
        }
        return id
    }
}
