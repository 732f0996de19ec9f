import Hummingbird
import LiveActivitiesCore
import Logging
import PostgresStore

/// The authenticated caller of a tenant route.
struct Tenant: Sendable {
    var appID: Int64
    var appKey: String
    var role: AppAuthRecord.Role
    var devicePermissions: DevicePermissions = .default
    var contracts: ContractUse = .none
}

struct GatewayContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// Set by `TenantAuthMiddleware`; routes behind it can rely on it.
    var tenant: Tenant?
    /// The request's HTTP Basic credentials, parsed once by `ObservabilityMiddleware` (its log lines name the app
    /// key) and checked by `TenantAuthMiddleware`.
    var basicCredentials: BasicCredentials?
    /// Hummingbird's request id, which every log line of the request carries (`hb.request.id`); error bodies answer
    /// it as `request_id`. A fresh one where the log handler keeps no metadata.
    let requestID: String

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.tenant = nil
        self.basicCredentials = nil
        self.requestID = source.logger[metadataKey: "hb.request.id"]?.description ?? RequestID().description
    }

    /// The tenant, or 401 when a route was mounted without authentication by mistake.
    func requireTenant() throws -> Tenant {
        guard let tenant = self.tenant else { throw APIError.unauthorized }
        return tenant
    }
}
