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
            // The queue depth comes from the gauges' timer (100 ms here), not from the scrape.
            let deadline = ContinuousClock.now + .seconds(5)
            var text = ""
            while ContinuousClock.now < deadline {
                let metrics = try await gw.request(.get, "/metrics")
                #expect(metrics.status == .ok)
                text = metrics.text
                if text.contains(#"jobs_queue_depth{kind="push",state="queued"} 1"#) { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(
                text.contains(#"gateway_http_requests_total{method="GET",route="/admin/apps/{key}",status="404"} 1"#))
            #expect(text.contains("gateway_http_request_duration_seconds_bucket"))
            #expect(text.contains(#"jobs_queue_depth{kind="push",state="queued"} 1"#))
            #expect(!text.contains("UNKNOWNUNKNOWN"))  // ids never become labels
        }
    }

    /// A scrape never queries PostgreSQL (the gauges' timer does, here once an hour); with `METRICS_TOKEN` set it
    /// needs that bearer token.
    @Test func aScrapeReadsNoDatabaseAndMayNeedAToken() async throws {
        let token = "metrics-token-0123456789"
        try await GatewayHarness.run(gaugeInterval: .seconds(3600), metricsToken: token) { gw in
            // The timer's first refresh (at start) has happened once its timestamp shows; the next is in an hour.
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline,
                try await !gw.request(.get, "/metrics", auth: "Bearer \(token)").text.contains(
                    "jobs_queue_depth_refreshed_seconds")
            {
                try await Task.sleep(for: .milliseconds(20))
            }
            _ = try await PostgresJobQueue(database: gw.database).enqueue([JobRequest(kind: "push", appID: 1)])
            let refused = try await gw.request(.get, "/metrics")
            #expect(refused.status == .unauthorized)
            #expect(refused.json["error_code"] as? Int == 40101)
            #expect(try await gw.request(.get, "/metrics", auth: "Bearer wrong").status == .unauthorized)
            for _ in 0..<3 {
                let scraped = try await gw.request(.get, "/metrics", auth: "Bearer \(token)")
                #expect(scraped.status == .ok)
                #expect(!scraped.text.contains(#"jobs_queue_depth{kind="push""#))
            }
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
