import Foundation
import HTTPTypes
import Hummingbird
import LiveActivitiesCore
import PostgresStore

/// Airship's Push API v3 (server API): send, validate, report and cancel live-activity pushes.
struct PushRoutes {
    let pushes: any PushStore
    /// Reports read here: the primary, or a replica (`DATABASE_READ_URL`), as lag does not matter to a report.
    let reports: any PushStore
    let bodyLimit: Int
    /// The contracts' check (docs/contracts.md), before anything is written.
    let door: ContractDoor

    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

    func register(server: RouterGroup<GatewayContext>) {
        server.post("push", use: self.send)
        server.post("push/validate", use: self.validate)
        server.get("pushes/{push_id}", use: self.report)
        server.delete("pushes/{push_id}", use: self.cancel)
    }

    /// Airship's answer, and what the contracts' check did to each push (only when a contract applied to one).
    struct Answer: Encodable, Sendable {
        var accepted: PushAccepted
        var contracts: [ContractReport]?

        enum CodingKeys: String, CodingKey { case contracts }

        func encode(to encoder: any Encoder) throws {
            try self.accepted.encode(to: encoder)
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(self.contracts, forKey: .contracts)
        }
    }

    @Sendable func send(_ request: Request, context: GatewayContext) async throws -> OK<Answer> {
        let tenant = try context.requireTenant()
        let key = try Self.idempotencyKey(request)
        let submission = try await request.decodeJSON(PushSubmission.self, limit: self.bodyLimit)
        let now = Date()
        try submission.checkTimestamps(now: now)
        let (pushes, reports) = try await self.door.check(
            tenant, submission.pushes, prefix: { submission.pushes.count > 1 ? "[\($0)]." : "" })
        let (accepted, replayed) = try await self.pushes.submit(
            appID: tenant.appID, pushes, idempotencyKey: key, now: now)
        context.logger.info(
            "push accepted",
            metadata: [
                "operation_id": "\(accepted.operationID.uuidString.lowercased())",
                "push_ids": "\(accepted.pushIDs.map { $0.uuidString.lowercased() }.joined(separator: ","))",
                "replayed": "\(replayed)",
            ])
        return OK(
            Answer(accepted: accepted, contracts: ContractReport.answer(reports)), status: .accepted)
    }

    struct Validated: Encodable, Sendable {
        var contracts: [ContractReport]?
    }

    @Sendable func validate(_ request: Request, context: GatewayContext) async throws -> OK<Validated> {
        let tenant = try context.requireTenant()
        let submission = try await request.decodeJSON(PushSubmission.self, limit: self.bodyLimit)
        let now = Date()
        try submission.checkTimestamps(now: now)
        let (pushes, reports) = try await self.door.check(
            tenant, submission.pushes, prefix: { submission.pushes.count > 1 ? "[\($0)]." : "" })
        try await self.pushes.validate(appID: tenant.appID, pushes, now: now)
        return OK(Validated(contracts: ContractReport.answer(reports)))
    }

    struct Report: Encodable, Sendable { var push: PushReport }

    @Sendable func report(_ request: Request, context: GatewayContext) async throws -> OK<Report> {
        let tenant = try context.requireTenant()
        guard let report = try await self.reports.report(appID: tenant.appID, pushID: try Self.pushID(context)) else {
            throw APIError.notFound("The push")
        }
        return OK(Report(push: report))
    }

    struct Canceled: Encodable, Sendable { var canceled: Int }

    @Sendable func cancel(_ request: Request, context: GatewayContext) async throws -> OK<Canceled> {
        let tenant = try context.requireTenant()
        guard let canceled = try await self.pushes.cancel(appID: tenant.appID, pushID: try Self.pushID(context)) else {
            throw APIError.notFound("The push")
        }
        return OK(Canceled(canceled: canceled))
    }

    static func pushID(_ context: GatewayContext) throws -> UUID {
        guard let raw = context.parameters.get("push_id"), let id = UUID(uuidString: raw) else {
            throw APIError.notFound("The push")
        }
        return id
    }

    /// 1 to 255 printable ASCII characters, as most idempotency schemes allow.
    static func idempotencyKey(_ request: Request) throws -> String? {
        guard let key = request.headers[Self.idempotencyKey] else { return nil }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw APIError(
                .badRequest, code: .invalidField, "The Idempotency-Key header must be 1 to 255 printable characters.",
                details: ["path": "header:Idempotency-Key", "rule": "must be 1 to 255 printable ASCII characters"])
        }
        return key
    }
}
