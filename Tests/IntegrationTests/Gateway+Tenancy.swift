import APNsTransport
import Foundation
import HTTPTypes
import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct GatewayTenancyTests {
    @Test func anotherTenantsIdsAreNotFoundAndNothingChanges() async throws {
        try await GatewayHarness.run { gw in
            let a = try await gw.createApp(name: "A", bundleID: "com.example.a")
            let b = try await gw.createApp(name: "B", bundleID: "com.example.b")
            let registered = try await gw.request(
                .post, "/api/channels", json: #"{"channel":{"device_type":"ios","install_id":"a-1","tags":["gold"]}}"#,
                auth: a.device)
            #expect(registered.status == .created)
            let id = try #require(registered.json["channel_id"] as? String)

            #expect(try await gw.request(.get, "/api/channels/\(id)", auth: a.server).status == .ok)
            #expect(try await gw.request(.get, "/api/channels/\(id)", auth: b.server).status == .notFound)
            let update = #"{"channel":{"opt_in":true,"tags":["stolen"]}}"#
            #expect(try await gw.request(.put, "/api/channels/\(id)", json: update, auth: b.device).status == .notFound)
            #expect(try await gw.request(.put, "/api/channels/\(id)", json: update, auth: b.server).status == .notFound)

            let lookup = try await gw.request(.get, "/api/channels/\(id)", auth: a.server)
            let channel = try #require(lookup.json["channel"] as? [String: Any])
            #expect(channel["tags"] as? [String] == ["gold"])
            #expect(channel["opt_in"] as? Bool == false)
        }
    }

    @Test func theAppSecretIsForbiddenOnServerEndpointsAndBadCredentialsAreUnauthorized() async throws {
        try await GatewayHarness.run { gw in
            let a = try await gw.createApp()
            let registered = try await gw.request(
                .post, "/api/channels", json: #"{"channel":{"device_type":"ios","install_id":"a-1"}}"#, auth: a.device)
            let id = try #require(registered.json["channel_id"] as? String)

            #expect(try await gw.request(.get, "/api/channels/\(id)", auth: a.device).status == .forbidden)
            let missing = try await gw.request(.get, "/api/channels/\(id)")
            #expect(missing.status == .unauthorized)
            #expect(missing.headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
            let wrong = GatewayHarness.basic(a.key, "wrong-secret-wrong-secr")
            #expect(try await gw.request(.get, "/api/channels/\(id)", auth: wrong).status == .unauthorized)
            #expect(try await gw.request(.get, "/api/channels/\(id)", auth: "Basic !!!").status == .unauthorized)

            // A repeat registration with the same install id and the channel's secret is the same channel.
            let secret = try #require(registered.json["channel_secret"] as? String)
            let again = try await gw.request(
                .post, "/api/channels", json: #"{"channel":{"device_type":"ios","install_id":"a-1"}}"#, auth: a.device,
                headers: [HTTPField.Name("X-Channel-Secret")!: secret])
            #expect(again.status == .ok)
            #expect(again.json["channel_id"] as? String == id)
            #expect(again.json["channel_secret"] == nil)
        }
    }
}
