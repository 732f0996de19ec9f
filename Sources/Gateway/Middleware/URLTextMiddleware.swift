import Foundation
import Hummingbird
import LiveActivitiesCore

/// Path and query text reach PostgreSQL as ids and names: a control character in them (`%00` for a NUL) is a 400
/// naming `url`, as is a percent-encoding that is not UTF-8.
struct URLTextMiddleware: RouterMiddleware {
    typealias Context = GatewayContext

    func handle(
        _ request: Request, context: GatewayContext, next: (Request, GatewayContext) async throws -> Response
    ) async throws -> Response {
        let raw = request.uri.description
        if raw.utf8.contains(UInt8(ascii: "%")) {
            guard let decoded = raw.removingPercentEncoding else {
                throw APIError.validation(ValidationError(path: "url", rule: "must be percent-encoded UTF-8"))
            }
            try ControlCharacters.refuseAny(decoded, path: "url")
        }
        return try await next(request, context)
    }
}
