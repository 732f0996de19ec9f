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
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer "),
            SHA256.hash(data: Array(header.dropFirst(7).utf8)) == self.tokenDigest
        else {
            var error = APIError.unauthorized
            error.headers = [.wwwAuthenticate: "Bearer realm=\"live-activities-gateway-admin\""]
            error.message = "A valid admin bearer token is required."
            throw error
        }
        return try await next(request, context)
    }
}
