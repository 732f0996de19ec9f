import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct GatewayHealthTests {
    @Test func healthReadinessAndMetrics() async throws {
        try await GatewayHarness.run { gw in
            #expect(try await gw.request(.get, "/healthz").status == .ok)
            let ready = try await gw.request(.get, "/readyz")
            #expect(ready.status == .ok)
            #expect(ready.json["schema_version"] as? Int == Schema.version)

            _ = try await PostgresJobQueue(database: gw.database).enqueue([JobRequest(kind: "push", appID: 1)])
            _ = try await gw.request(.get, "/admin/apps/UNKNOWNUNKNOWNUNKNOWN1", auth: gw.admin)
            let metrics = try await gw.request(.get, "/metrics")
            #expect(metrics.status == .ok)
            let text = metrics.text
            #expect(
                text.contains(#"gateway_http_requests_total{method="GET",route="/admin/apps/{key}",status="404"} 1"#))
            #expect(text.contains("gateway_http_request_duration_seconds_bucket"))
            #expect(text.contains(#"jobs_queue_depth{kind="push",state="queued"} 1"#))
            #expect(!text.contains("UNKNOWNUNKNOWN"))  // ids never become labels
        }
    }

    @Test func readinessFailsOnAnUnknownSchema() async throws {
        try await GatewayHarness.run { gw in
            try await gw.database.client.query("DELETE FROM schema_migrations WHERE version = \(Schema.version)")
            let ready = try await gw.request(.get, "/readyz")
            #expect(ready.status == .serviceUnavailable)
            #expect(ready.text.contains("gateway migrate"))
        }
    }
}
