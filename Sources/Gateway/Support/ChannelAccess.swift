import Foundation
import HTTPTypes
import Hummingbird
import LiveActivitiesCore
import PostgresStore

/// Device calls on `/api/channels/{channel_id}/...` prove they are the channel's device: the app secret is public (it
/// ships in the app), so they also present the channel's own secret, `X-Channel-Secret`. A missing or wrong secret is
/// answered as an unknown channel (404): the call learns nothing of other devices' channels.
struct ChannelAccess: Sendable {
    static let header = HTTPField.Name("X-Channel-Secret")!

    let channels: any ChannelStore

    /// What the call proves: the master secret, or the app secret with the header's secret (if any).
    static func proof(_ request: Request, _ tenant: Tenant) -> ChannelProof {
        tenant.role == .server ? .server : ChannelSecret.deviceProof(header: request.headers[Self.header])
    }

    /// The channel named in the path, once the call proved it may act on it.
    func channelID(_ request: Request, _ context: GatewayContext) async throws -> UUID {
        let tenant = try context.requireTenant()
        let id = try ChannelRoutes.channelID(context)
        guard try await self.channels.verify(appID: tenant.appID, channelID: id, proof: Self.proof(request, tenant))
        else { throw APIError.channelNotFound }
        return id
    }
}
