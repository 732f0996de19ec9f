import Foundation
import Hummingbird
import NIOCore

/// `GET /openapi.json`: the API's OpenAPI 3.1 document (`Resources/openapi.json`, kept in the repository and
/// checked against the routes and the running gateway by tests). Read once; served as it is.
struct OpenAPIRoutes {
    static let document: ByteBuffer? = Bundle.module.url(forResource: "openapi", withExtension: "json")
        .flatMap { try? Data(contentsOf: $0) }
        .map { ByteBuffer(bytes: $0) }

    func register(on router: Router<GatewayContext>) {
        router.get("openapi.json") { _, _ in
            guard let document = Self.document else {
                throw APIError(.serviceUnavailable, code: .unavailable, "The OpenAPI document is not installed.")
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: document))
        }
    }
}
