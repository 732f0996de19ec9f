import BroadcastManagement
import Foundation
import Hummingbird
import LiveActivitiesCore

/// Broadcast channels by activity name (iOS 18): created and deleted at Apple by the server API; a device may read
/// one (an app that starts an activity itself needs the channel id to subscribe it).
struct BroadcastChannelRoutes {
    let channels: BroadcastChannels
    let bodyLimit: Int

    func register(server: RouterGroup<GatewayContext>, device: RouterGroup<GatewayContext>) {
        server.put("broadcast-channels/{name}", use: self.ensure)
        server.get("broadcast-channels", use: self.list)
        server.delete("broadcast-channels/{name}", use: self.delete)
        device.get("broadcast-channels/{name}", use: self.get)
    }

    struct One: Encodable, Sendable {
        var broadcastChannel: BroadcastChannel
        enum CodingKeys: String, CodingKey { case broadcastChannel = "broadcast_channel" }
    }

    @Sendable func ensure(_ request: Request, context: GatewayContext) async throws -> OK<One> {
        let tenant = try context.requireTenant()
        let name = try Self.name(context)
        let body = try await request.decodeJSON(BroadcastChannelRequest.self, limit: self.bodyLimit)
        do {
            let (channel, created) = try await self.channels.ensure(
                appID: tenant.appID, name: name, storage: body.storage)
            return OK(One(broadcastChannel: channel), status: created ? .created : .ok)
        } catch let error as BroadcastChannelError {
            throw APIError(broadcast: error)
        }
    }

    @Sendable func get(_ request: Request, context: GatewayContext) async throws -> OK<One> {
        let tenant = try context.requireTenant()
        guard let channel = try await self.channels.channel(appID: tenant.appID, name: try Self.name(context)) else {
            throw APIError.notFound("The broadcast channel")
        }
        return OK(One(broadcastChannel: channel))
    }

    struct Page: Encodable, Sendable {
        var broadcastChannels: [BroadcastChannel]
        var used: Int
        var limit: Int
        /// Pass as `after` for the next page; absent on the last.
        var nextAfter: String?
        enum CodingKeys: String, CodingKey {
            case used, limit
            case broadcastChannels = "broadcast_channels"
            case nextAfter = "next_after"
        }
    }

    /// `?after=<name>&limit=<1-1000, default 100>`, in name order.
    @Sendable func list(_ request: Request, context: GatewayContext) async throws -> OK<Page> {
        let tenant = try context.requireTenant()
        let query = request.uri.queryParameters
        var limit = 100
        if let raw = query.get("limit") {
            guard let n = Int(raw), (1...1000).contains(n) else {
                throw APIError.validation(
                    ValidationError(path: "query:limit", rule: "must be a whole number from 1 to 1000"))
            }
            limit = n
        }
        let after = query.get("after")
        let (channels, used) = try await self.channels.list(appID: tenant.appID, after: after, limit: limit)
        return OK(
            Page(
                broadcastChannels: channels, used: used, limit: BroadcastChannel.limitPerApp,
                nextAfter: channels.count == limit ? channels.last?.name : nil))
    }

    struct Deleted: Encodable, Sendable { var deleted: Int }

    @Sendable func delete(_ request: Request, context: GatewayContext) async throws -> OK<Deleted> {
        let tenant = try context.requireTenant()
        do {
            guard try await self.channels.delete(appID: tenant.appID, name: try Self.name(context)) else {
                throw APIError.notFound("The broadcast channel")
            }
        } catch let error as BroadcastChannelError {
            throw APIError(broadcast: error)
        }
        return OK(Deleted(deleted: 1))
    }

    /// The activity name, under the registry's rules for names.
    static func name(_ context: GatewayContext) throws -> String {
        let raw = context.parameters.get("name") ?? ""
        let name = raw.removingPercentEncoding ?? raw
        try RegistryRules.activityName(name, path: "path:name")
        return name
    }
}

extension APIError {
    init(broadcast error: BroadcastChannelError) {
        switch error {
        case .limitReached(let limit):
            self.init(
                .conflict, code: .conflict,
                "The app has \(limit) broadcast channels, Apple's limit per app and environment; delete idle ones first.",
                details: ["path": "name", "rule": "at most \(limit) broadcast channels per app", "limit": "\(limit)"])
        case .storageMismatch(let existing):
            self.init(
                .conflict, code: .conflict,
                "The name has a broadcast channel with storage '\(existing.rawValue)'; Apple cannot change a channel's storage "
                    + "policy: delete the channel first.",
                details: [
                    "path": "storage", "rule": "must match the existing channel's storage (\(existing.rawValue))",
                ])
        case .refused(let status, let reason):
            self.init(
                .conflict, code: .conflict,
                "APNs refused the channel request: \(reason) (HTTP \(status)). FeatureNotEnabled: enable broadcast "
                    + "push notifications for the app's bundle id.",
                details: ["apns_status": "\(status)", "apns_reason": reason])
        case .unreachable:
            self.init(
                .serviceUnavailable, code: .unavailable, "APNs' channel management could not be reached; try again.",
                headers: [.retryAfter: "5"])
        case .noCredentials:
            self = .notFound("The app's APNs key")
        }
    }
}
