import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct GatewayAdminAPITests {
    @Test func operatorsManageAppsAndNeverSeeSecretsAgain() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp(name: "Chests", bundleID: "com.example.chests")
            #expect(Credentials.isWellFormed(app.key) && Credentials.isWellFormed(app.appSecret))
            #expect(Credentials.isWellFormed(app.masterSecret))

            let list = try await gw.request(.get, "/admin/apps", auth: gw.admin)
            #expect(list.status == .ok)
            #expect(list.text.contains(app.key))
            let one = try await gw.request(.get, "/admin/apps/\(app.key)/", auth: gw.admin)  // trailing slash works
            #expect(one.status == .ok)
            for response in [list, one] {
                #expect(!response.text.contains(app.appSecret) && !response.text.contains(app.masterSecret))
                #expect(!response.text.contains("PRIVATE KEY"))
            }

            // Rotation: new secrets work, old ones are refused at once.
            let rotated = try await gw.request(.post, "/admin/apps/\(app.key)/rotate-secrets", auth: gw.admin)
            #expect(rotated.status == .ok)
            let newMaster = try #require(rotated.json["master_secret"] as? String)
            #expect(newMaster != app.masterSecret)
            let channel = #"{"channel":{"device_type":"ios","install_id":"i-1"}}"#
            #expect(
                try await gw.request(.post, "/api/channels", json: channel, auth: app.server).status == .unauthorized)
            let withNew = GatewayHarness.basic(app.key, newMaster)
            #expect(try await gw.request(.post, "/api/channels", json: channel, auth: withNew).status == .created)

            // Replace APNs credentials.
            let apns =
                #"{"team_id":"TEAMNEW123","key_id":"KEYNEW1234","environment":"production","private_key":\#(jsonString(Fixtures.p8()))}"#
            let replaced = try await gw.request(.put, "/admin/apps/\(app.key)/apns", json: apns, auth: gw.admin)
            #expect(replaced.status == .ok)
            #expect((replaced.json["app"] as? [String: Any])?["team_id"] as? String == "TEAMNEW123")

            // Delete removes the app and what it owns.
            #expect(try await gw.request(.delete, "/admin/apps/\(app.key)", auth: gw.admin).status == .ok)
            #expect(try await gw.request(.get, "/admin/apps/\(app.key)", auth: gw.admin).status == .notFound)
            #expect(try await gw.database.scalar("SELECT count(*) FROM channels", as: Int64.self) == 0)
            #expect(try await gw.request(.post, "/api/channels", json: channel, auth: withNew).status == .unauthorized)
        }
    }

    @Test func theOperatorAPINeedsTheAdminToken() async throws {
        try await GatewayHarness.run { gw in
            let none = try await gw.request(.get, "/admin/apps")
            #expect(none.status == .unauthorized)
            #expect(none.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            #expect(
                try await gw.request(.get, "/admin/apps", auth: "Bearer wrong-token-wrong-token").status
                    == .unauthorized)
        }
    }

    @Test func badInputGetsAPreciseClientErrorAndWritesNothing() async throws {
        try await GatewayHarness.run(maxBodyBytes: 4096) { gw in
            func expectError(_ json: String, status: Int, path: String, rule: String? = nil) async throws {
                let response = try await gw.request(.post, "/admin/apps", json: json, auth: gw.admin)
                #expect(response.status.code == status, "\(response.text)")
                #expect(response.json["ok"] as? Bool == false)
                #expect(response.json["error_code"] is Int)
                let details = response.json["details"] as? [String: String] ?? [:]
                #expect(details["path"] == path, "\(response.text)")
                if let rule { #expect(details["rule"] == rule, "\(response.text)") }
            }
            let notAKey = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"
            try await expectError(Fixtures.createAppJSON(pem: notAKey), status: 400, path: "apns.private_key")
            try await expectError(Fixtures.createAppJSON(pem: "hello"), status: 400, path: "apns.private_key")
            try await expectError(#"{"name":"x","apns":{}}"#, status: 400, path: "bundle_id", rule: "is required")
            try await expectError(
                Fixtures.createAppJSON(extra: "surprise"), status: 400, path: "extra", rule: "is not a known field")
            try await expectError(#"{"name":5}"#, status: 400, path: "name", rule: "must be a string")
            try await expectError("{not json", status: 400, path: "")
            let bigName = String(repeating: "n", count: 5000)
            let big = try await gw.request(
                .post, "/admin/apps", json: Fixtures.createAppJSON(name: bigName), auth: gw.admin)
            #expect(big.status == .contentTooLarge)
            #expect((big.json["details"] as? [String: String])?["limit"] == "4096")

            #expect(try await gw.database.scalar("SELECT count(*) FROM apps", as: Int64.self) == 0)
        }
    }
}

func jsonString(_ value: String) -> String {
    String(decoding: try! JSONEncoder().encode(value), as: UTF8.self)
}
