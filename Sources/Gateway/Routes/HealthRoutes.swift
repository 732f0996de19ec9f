import Crypto
import Hummingbird
import LiveActivitiesCore
import NIOCore
import PostgresStore
import Prometheus

/// `/healthz` (the process is up), `/readyz` (database reachable, schema current), `/metrics` (Prometheus text).
struct HealthRoutes {
    let database: Database
    let registry: PrometheusCollectorRegistry
    /// `METRICS_TOKEN`'s digest: when set, a scrape presents the token as a bearer token.
    let tokenDigest: SHA256.Digest?

    init(database: Database, registry: PrometheusCollectorRegistry, token: String?) {
        self.database = database
        self.registry = registry
        self.tokenDigest = token.map { SHA256.hash(data: Array($0.utf8)) }
    }

    func register(on router: Router<GatewayContext>) {
        router.get("healthz") { _, _ in OK(Status(status: "up")) }
        router.get("readyz", use: self.ready)
        router.get("metrics", use: self.metrics)
    }

    struct Status: Encodable, Sendable {
        var status: String
        var schemaVersion: Int?

        enum CodingKeys: String, CodingKey {
            case status
            case schemaVersion = "schema_version"
        }
    }

    @Sendable func ready(_ request: Request, context: GatewayContext) async throws -> OK<Status> {
        do {
            try await Migrator(database: self.database).requireCurrent()
        } catch let error as MigrationError {
            throw APIError(.serviceUnavailable, code: .unavailable, error.description)
        } catch {
            throw APIError(.serviceUnavailable, code: .unavailable, "The database is not reachable.")
        }
        return OK(Status(status: "ready", schemaVersion: Schema.version))
    }

    /// The registry as it is: gauges that read PostgreSQL are refreshed by `GaugeRefresher`, never by a scrape.
    @Sendable func metrics(_ request: Request, context: GatewayContext) async throws -> Response {
        if let digest = self.tokenDigest {
            guard AdminAuthMiddleware<GatewayContext>.bearer(request.headers[.authorization], matches: digest) else {
                throw APIError(
                    .unauthorized, code: .unauthorized, "The metrics need the bearer token (METRICS_TOKEN).",
                    headers: [.wwwAuthenticate: "Bearer"])
            }
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        self.registry.emit(into: &buffer)
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: buffer))
        )
    }
}
