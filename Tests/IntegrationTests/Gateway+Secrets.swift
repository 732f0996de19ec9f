import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct GatewaySecretsTests {
    @Test func secretsAreStoredHashedKeysSealedAndNeitherIsLogged() async throws {
        let logs = LogCapture()
        try await GatewayHarness.run(logs: logs) { gw in
            let pem = Fixtures.p8()
            let created = try await gw.request(
                .post, "/admin/apps", json: Fixtures.createAppJSON(pem: pem), auth: gw.admin)
            #expect(created.status == .created)
            let key = try #require(created.json["app_key"] as? String)
            let appSecret = try #require(created.json["app_secret"] as? String)
            let masterSecret = try #require(created.json["master_secret"] as? String)
            let app = TestApp(key: key, appSecret: appSecret, masterSecret: masterSecret)
            _ = try await gw.request(.post, "/api/channels", json: #"{"channel":{"install_id":"x"}}"#, auth: app.device)
            _ = try await gw.request(.get, "/api/channels/00000000-0000-0000-0000-000000000000", auth: app.server)
            let rotated = try await gw.request(.post, "/admin/apps/\(key)/rotate-secrets", auth: gw.admin)
            let newSecret = try #require(rotated.json["master_secret"] as? String)

            // At rest: no plaintext secret, no PEM.
            let stored = try await gw.database.scalar(
                "SELECT app_secret_hash::text || master_secret_hash::text || encode(apns_private_key_sealed, 'escape') FROM apps",
                as: String.self)
            #expect(!stored.contains(appSecret) && !stored.contains("PRIVATE KEY"))

            // In logs: requests were logged, secrets were not.
            let text = logs.text
            #expect(text.contains("route"))
            #expect(text.contains(key))
            for secret in [appSecret, masterSecret, newSecret, GatewayHarness.adminToken, "PRIVATE KEY", pem] {
                #expect(!text.contains(secret))
            }
        }
    }
}
