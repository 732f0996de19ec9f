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

    /// A fault no route expects (here the pushes' table is gone) answers a 500 in the error shape, with the request
    /// id that the log line carries too; nothing of the database's error reaches the client.
    @Test func anUnexpectedErrorAnswersTheErrorShapeWithTheRequestID() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await gw.database.client.query("DROP TABLE push_operations CASCADE")
            let response = try await gw.request(
                .post, "/api/push", json: PushAPIValidationTests.valid, auth: app.server)
            #expect(response.status == .internalServerError)
            #expect(response.json["ok"] as? Bool == false)
            #expect(response.json["error_code"] as? Int == 50001)
            let id = try #require(response.json["request_id"] as? String)
            #expect(!id.isEmpty && !response.text.contains("push_operations"))
            // A 4xx carries its request id as well.
            let missing = try await gw.request(.get, "/api/pushes/\(UUID())", auth: app.server)
            #expect(missing.status == .notFound && (missing.json["request_id"] as? String)?.isEmpty == false)
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
