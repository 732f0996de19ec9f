import Foundation
import Hummingbird
import LiveActivitiesCore
import PostgresStore

/// HTTP Basic `app_key:master_secret` (server) or `app_key:app_secret` (device).
/// With `serverOnly`, the app secret gets 403: it is valid, just not for this endpoint.
/// Each credential then takes one request from its app's rate (`RateLimiter`): beyond it, 429 with `Retry-After`.
struct TenantAuthMiddleware: RouterMiddleware {
    typealias Context = GatewayContext
    let credentials: CredentialCache
    let limiter: RateLimiter
    let serverOnly: Bool

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        guard let credentials = context.basicCredentials ?? BasicCredentials(request.headers[.authorization]) else {
            throw APIError.unauthorized
        }
        let found: AppAuthRecord?
        do {
            found = try await self.credentials.record(appKey: credentials.appKey)
        } catch is CredentialCache.TooManyUnknownKeys {
            throw APIError.tooManyRequests("Too many unknown app keys; try again shortly.", retryAfter: 1)
        }
        guard let record = found, let role = record.role(for: credentials.secret) else { throw APIError.unauthorized }
        if self.serverOnly && role != .server { throw APIError.serverOnly }
        let rate = role == .server ? record.rates.server : record.rates.device
        if let wait = self.limiter.take(appID: record.id, server: role == .server, rate: rate) {
            let policy = role == .server ? "server_requests_per_second" : "device_requests_per_second"
            throw APIError.tooManyRequests(
                "The app's \(role == .server ? "master" : "app") secret is limited to \(rate) requests per second.",
                retryAfter: wait, details: ["limit": policy, "value": "\(rate)"])
        }
        var context = context
        context.tenant = Tenant(
            appID: record.id, appKey: record.appKey, role: role, devicePermissions: record.devicePermissions,
            contracts: record.contracts)
        return try await next(request, context)
    }
}

/// `Authorization: Basic base64(app_key:secret)`, with a well-formed app key and a non-empty secret.
struct BasicCredentials: Sendable {
    var appKey: String
    var secret: String

    init?(_ header: String?) {
        guard let header, header.utf8.count > 6 else { return nil }
        // "Basic " in any case, compared byte by byte (no lowercased copy of the header).
        let scheme = header.utf8.prefix(6)
        guard scheme.elementsEqual("basic ".utf8, by: { $1 == 0x20 ? $0 == $1 : $0 | 0x20 == $1 }),
            let decoded = Data(base64Encoded: String(header.dropFirst(6))),
            let colon = decoded.firstIndex(of: UInt8(ascii: ":"))
        else { return nil }
        let key = String(decoding: decoded[..<colon], as: UTF8.self)
        let secret = String(decoding: decoded[(colon + 1)...], as: UTF8.self)
        guard Credentials.isWellFormed(key), !secret.isEmpty else { return nil }
        self.appKey = key
        self.secret = secret
    }
}
