import Foundation
import Hummingbird
import LiveActivitiesCore
import PostgresStore

/// Airship's `/api/schedules` (server API), and the scheduled updates of one tracked activity plus tap attribution
/// (device API).
struct ScheduleRoutes {
    let schedules: any ScheduleStore
    /// Lists and lookups read here: the primary, or a replica (`DATABASE_READ_URL`).
    let reads: any ScheduleStore
    let access: ChannelAccess
    let bodyLimit: Int
    let door: ContractDoor

    func register(server: RouterGroup<GatewayContext>, device: RouterGroup<GatewayContext>) {
        server.post("schedules", use: self.create)
        server.get("schedules", use: self.list)
        server.get("schedules/{schedule_id}", use: self.get)
        server.put("schedules/{schedule_id}", use: self.replace)
        server.delete("schedules/{schedule_id}", use: self.delete)
        device.post("channels/{channel_id}/live-activities/{name}/updates", use: self.scheduleUpdate)
        device.delete("channels/{channel_id}/live-activities/{name}/updates", use: self.cancelUpdates)
        device.post("channels/{channel_id}/launches", use: self.launch)
    }

    struct Created: Encodable, Sendable {
        var scheduleURLs: [String]
        var scheduleIDs: [String]
        enum CodingKeys: String, CodingKey {
            case scheduleURLs = "schedule_urls"
            case scheduleIDs = "schedule_ids"
        }
    }

    @Sendable func create(_ request: Request, context: GatewayContext) async throws -> OK<Created> {
        let tenant = try context.requireTenant()
        let submission = try await request.decodeJSON(OneOrMany<ScheduleRequest>.self, limit: self.bodyLimit)
        var requests = submission.elements
        for index in requests.indices {
            let prefix = requests.count > 1 ? "[\(index)].push." : "push."
            requests[index].push.liveActivity = try await self.door.check(
                tenant, requests[index].push.liveActivity, path: "\(prefix)notification.ios.live_activity"
            ).notification
        }
        let created = try await self.schedules.create(appID: tenant.appID, requests, now: Date())
        let ids = created.map { $0.id.uuidString.lowercased() }
        return OK(Created(scheduleURLs: ids.map { "/api/schedules/\($0)" }, scheduleIDs: ids), status: .created)
    }

    struct Listing: Encodable, Sendable { var schedules: [ScheduleSummary] }

    @Sendable func list(_ request: Request, context: GatewayContext) async throws -> OK<Listing> {
        let tenant = try context.requireTenant()
        return OK(Listing(schedules: try await self.reads.list(appID: tenant.appID, limit: 1000)))
    }

    struct One: Encodable, Sendable { var schedule: ScheduleSummary }

    @Sendable func get(_ request: Request, context: GatewayContext) async throws -> OK<One> {
        let tenant = try context.requireTenant()
        guard let schedule = try await self.reads.get(appID: tenant.appID, id: try Self.scheduleID(context)) else {
            throw APIError.notFound("The schedule")
        }
        return OK(One(schedule: schedule))
    }

    @Sendable func replace(_ request: Request, context: GatewayContext) async throws -> OK<One> {
        let tenant = try context.requireTenant()
        let id = try Self.scheduleID(context)
        var body = try await request.decodeJSON(ScheduleRequest.self, limit: self.bodyLimit)
        body.push.liveActivity = try await self.door.check(
            tenant, body.push.liveActivity, path: "push.notification.ios.live_activity"
        ).notification
        guard let schedule = try await self.schedules.replace(appID: tenant.appID, id: id, body, now: Date()) else {
            throw APIError.notFound("The schedule")
        }
        return OK(One(schedule: schedule))
    }

    @Sendable func delete(_ request: Request, context: GatewayContext) async throws -> OK<Empty> {
        let tenant = try context.requireTenant()
        guard try await self.schedules.delete(appID: tenant.appID, id: try Self.scheduleID(context)) else {
            throw APIError.notFound("The schedule")
        }
        return OK(Empty())
    }

    struct Scheduled: Encodable, Sendable {
        var scheduleID: String
        var sendAt: Int64
        enum CodingKeys: String, CodingKey {
            case scheduleID = "schedule_id"
            case sendAt = "send_at"
        }
    }

    @Sendable func scheduleUpdate(_ request: Request, context: GatewayContext) async throws -> OK<Scheduled> {
        let tenant = try context.requireTenant()
        let (channelID, name) = (try await self.access.channelID(request, context), try ActivityRoutes.name(context))
        var body = try await request.decodeJSON(ActivityUpdateRequest.self, limit: self.bodyLimit)
        var named = body.notification
        named.name = name
        body.notification.contentState = try await self.door.check(tenant, named, path: "").notification
            .contentState
        let key = try PushRoutes.idempotencyKey(request)
        let (id, sendAt) = try await self.schedules.scheduleUpdate(
            appID: tenant.appID, channelID: channelID, name: name, body, now: Date(), idempotencyKey: key)
        return OK(
            Scheduled(scheduleID: id.uuidString.lowercased(), sendAt: Int64(sendAt.timeIntervalSince1970.rounded(.up))),
            status: .created)
    }

    struct Canceled: Encodable, Sendable { var canceled: Int }

    @Sendable func cancelUpdates(_ request: Request, context: GatewayContext) async throws -> OK<Canceled> {
        let tenant = try context.requireTenant()
        let (channelID, name) = (try await self.access.channelID(request, context), try ActivityRoutes.name(context))
        return OK(
            Canceled(
                canceled: try await self.schedules.cancelUpdates(appID: tenant.appID, channelID: channelID, name: name))
        )
    }

    struct Launch: Decodable, Sendable {
        var systemActivityID: String
        enum CodingKeys: String, CodingKey, CaseIterable { case systemActivityID = "system_activity_id" }
        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            self.systemActivityID = try decoder.container(keyedBy: CodingKeys.self).decode(
                String.self, forKey: .systemActivityID)
            try RegistryRules.systemActivityID(self.systemActivityID, path: "system_activity_id")
        }
    }

    @Sendable func launch(_ request: Request, context: GatewayContext) async throws -> OK<LaunchAttribution> {
        let tenant = try context.requireTenant()
        let channelID = try await self.access.channelID(request, context)
        let key = try PushRoutes.idempotencyKey(request)
        let body = try await request.decodeJSON(Launch.self, limit: self.bodyLimit)
        return OK(
            try await self.schedules.launch(
                appID: tenant.appID, channelID: channelID, systemActivityID: body.systemActivityID,
                idempotencyKey: key))
    }

    static func scheduleID(_ context: GatewayContext) throws -> UUID {
        guard let raw = context.parameters.get("schedule_id"), let id = UUID(uuidString: raw) else {
            throw APIError.notFound("The schedule")
        }
        return id
    }
}
