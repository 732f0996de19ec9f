import Foundation
import Hummingbird
import LiveActivitiesCore

/// Contracts per attributes type (server API; docs/contracts.md): the shapes the app's build with each version
/// decodes, put by the app's CI (`live-activities-contract upload`) or by hand.
struct ContractRoutes {
    let contracts: any ContractStore
    /// Dropped for the app at once on a change (other gateways hear of it on `app_changed`).
    let credentials: CredentialCache

    func register(server: RouterGroup<GatewayContext>) {
        server.get("attributes-types", use: self.listAll)
        server.get("attributes-types/{attributes_type}/contracts", use: self.list)
        server.put("attributes-types/{attributes_type}/contracts/{version}", use: self.put)
        server.get("attributes-types/{attributes_type}/contracts/{version}", use: self.get)
        server.delete("attributes-types/{attributes_type}/contracts/{version}", use: self.delete)
    }

    struct Stored: Encodable, Sendable {
        var attributesType: String
        var version: Int
        var contract: JSONValue?
        var created: Bool?
        enum CodingKeys: String, CodingKey {
            case version, contract, created
            case attributesType = "attributes_type"
        }
    }

    struct Listing: Encodable, Sendable { var contracts: [ContractSummary] }

    @Sendable func put(_ request: Request, context: GatewayContext) async throws -> OK<Stored> {
        let tenant = try context.requireTenant()
        let (type, version) = try Self.key(context)
        let document = try await request.decodeJSON(JSONValue.self, limit: AttributesContract.maxBytes)
        let contract: AttributesContract
        do {
            contract = try AttributesContract(attributesType: type, version: version, document: document)
        } catch {
            throw APIError.validation(error)
        }
        let created = try await self.contracts.put(appID: tenant.appID, contract)
        await self.credentials.invalidate(appKey: tenant.appKey)
        return OK(
            Stored(attributesType: type, version: version, contract: nil, created: created),
            status: created ? .created : .ok)
    }

    @Sendable func get(_ request: Request, context: GatewayContext) async throws -> OK<Stored> {
        let tenant = try context.requireTenant()
        let (type, version) = try Self.key(context)
        guard let contract = try await self.contracts.get(appID: tenant.appID, attributesType: type, version: version)
        else { throw APIError.notFound("The contract") }
        return OK(Stored(attributesType: type, version: version, contract: contract.document, created: nil))
    }

    @Sendable func delete(_ request: Request, context: GatewayContext) async throws -> OK<Empty> {
        let tenant = try context.requireTenant()
        let (type, version) = try Self.key(context)
        guard try await self.contracts.delete(appID: tenant.appID, attributesType: type, version: version) else {
            throw APIError.notFound("The contract")
        }
        await self.credentials.invalidate(appKey: tenant.appKey)
        return OK(Empty())
    }

    @Sendable func list(_ request: Request, context: GatewayContext) async throws -> OK<Listing> {
        let tenant = try context.requireTenant()
        let type = try ActivityRoutes.attributesType(context)
        let all = try await self.contracts.list(appID: tenant.appID)
        return OK(Listing(contracts: all.filter { $0.attributesType == type }))
    }

    @Sendable func listAll(_ request: Request, context: GatewayContext) async throws -> OK<Listing> {
        let tenant = try context.requireTenant()
        return OK(Listing(contracts: try await self.contracts.list(appID: tenant.appID)))
    }

    static func key(_ context: GatewayContext) throws -> (String, Int) {
        let type = try ActivityRoutes.attributesType(context)
        guard let raw = context.parameters.get("version"), let version = Int(raw),
            AttributesContract.versions.contains(version)
        else {
            throw APIError.validation(ValidationError(path: "path:version", rule: "must be an integer 1 to 1000000"))
        }
        return (type, version)
    }
}
