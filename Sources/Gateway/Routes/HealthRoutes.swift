import Hummingbird
import LiveActivitiesCore
import NIOCore
import PostgresStore
import Prometheus

/// `/healthz` (the process is up), `/readyz` (database reachable, schema current), `/metrics` (Prometheus text).
struct HealthRoutes {
    let database: Database
    let registry: PrometheusCollectorRegistry
    let queueDepth: QueueDepthGauges

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

    @Sendable func metrics(_ request: Request, context: GatewayContext) async throws -> Response {
        try? await self.queueDepth.refresh()
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
