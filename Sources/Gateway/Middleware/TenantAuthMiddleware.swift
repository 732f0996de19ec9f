import Foundation
import Hummingbird
import Shared

/// HTTP Basic `app_key:master_secret` (server) or `app_key:app_secret` (device).
/// With `serverOnly`, the app secret gets 403: it is valid, just not for this endpoint.
struct TenantAuthMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let credentials: CredentialCache
    let serverOnly: Bool

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        guard let (appKey, secret) = Self.basicCredentials(request),
            let record = try await self.credentials.record(appKey: appKey),
            let role = record.role(for: secret)
        else { throw APIError.unauthorized }
        if self.serverOnly && role != .server { throw APIError.serverOnly }
        var context = context
        context.tenant = Tenant(appID: record.id, appKey: record.appKey, role: role)
        context.logger[metadataKey: "app_key"] = "\(record.appKey)"
        return try await next(request, context)
    }

    static func basicCredentials(_ request: Request) -> (String, String)? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: String(parts[1])).map({ String(decoding: $0, as: UTF8.self) }),
            let colon = decoded.firstIndex(of: ":")
        else { return nil }
        let key = String(decoded[..<colon])
        let secret = String(decoded[decoded.index(after: colon)...])
        guard Credentials.isWellFormed(key), !secret.isEmpty else { return nil }
        return (key, secret)
    }
}

/// Authentication records cached for a few seconds, so a busy device API does not read `apps` per request.
/// Rotation and deletion through this gateway invalidate at once; other gateway replicas within `ttl`.
actor CredentialCache {
    private let store: any AppStore
    private let ttl: Duration
    private var entries: [String: (record: AppAuthRecord?, expires: ContinuousClock.Instant)] = [:]

    init(store: any AppStore, ttl: Duration = .seconds(5)) {
        self.store = store
        self.ttl = ttl
    }

    func record(appKey: String) async throws -> AppAuthRecord? {
        let now = ContinuousClock.now
        if let entry = self.entries[appKey], entry.expires > now { return entry.record }
        let record = try await self.store.authRecord(appKey: appKey)
        if self.entries.count > 10_000 { self.entries.removeAll(keepingCapacity: true) }
        self.entries[appKey] = (record, now + self.ttl)
        return record
    }

    func invalidate(appKey: String) {
        self.entries[appKey] = nil
    }
}
