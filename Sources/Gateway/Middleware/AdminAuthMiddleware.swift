import Crypto
import Hummingbird
import LiveActivitiesCore
import PostgresStore

/// `Authorization: Bearer <admin token>` for the operator API, compared in constant time.
struct AdminAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let tokenDigest: SHA256.Digest

    init(token: String) {
        self.tokenDigest = SHA256.hash(data: Array(token.utf8))
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard Self.bearer(request.headers[.authorization], matches: self.tokenDigest) else {
            var error = APIError.unauthorized
            error.headers = [.wwwAuthenticate: "Bearer realm=\"live-activities-gateway-admin\""]
            error.message = "A valid admin bearer token is required."
            throw error
        }
        return try await next(request, context)
    }

    /// Whether `header` is `Bearer <token>` for the token of `digest` (digests compared, so in constant time).
    static func bearer(_ header: String?, matches digest: SHA256.Digest) -> Bool {
        guard let header, header.lowercased().hasPrefix("bearer ") else { return false }
        return SHA256.hash(data: Array(header.dropFirst(7).utf8)) == digest
    }
}
