import APNsTransport
import Foundation
import HummingbirdTesting
import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct RegistryTokensAndTagsTests {
    @Test func aNewPushToStartTokenReplacesTheOldAndDeletionIsExplicit() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channel = try await gw.registerChannel(app, installID: "device-1")
            let path = "/api/channels/\(channel)/push-to-start/MatchAttributes"
            func put(_ token: String) async throws -> String? {
                try await gw.request(.put, path, json: #"{"token":"\#(token)"}"#, auth: app.device).json["result"]
                    as? String
            }
            func stored() async throws -> String {
                try await gw.database.scalar(
                    "SELECT coalesce(string_agg(token, ','), '') FROM push_to_start_tokens WHERE state = 'active'")
            }
            #expect(try await put(hexToken(1)) == "created")
            #expect(try await put(hexToken(1)) == "unchanged")
            #expect(try await put(hexToken(2)) == "replaced")
            #expect(try await stored() == hexToken(2))

            // Updating the channel without tokens, or with nulls, deletes nothing.
            let update = #"{"channel":{"opt_in":true,"named_user_id":null,"tags":null}}"#
            #expect(
                try await gw.request(.put, "/api/channels/\(channel)", json: update, auth: app.device).status == .ok)
            #expect(try await stored() == hexToken(2))

            #expect(try await gw.request(.delete, path, auth: app.device).json["deleted"] as? Int == 1)
            #expect(try await gw.request(.delete, path, auth: app.device).json["deleted"] as? Int == 0)
            #expect(try await stored() == "")
        }
    }

    @Test func serverTagChangesAddRemoveAndSetByGroup() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let one = try await gw.registerChannel(app, installID: "d1", extra: #","tags":["x"],"named_user_id":"u1""#)
            let two = try await gw.registerChannel(app, installID: "d2")
            func tags(_ id: String) async throws -> [String: [String]] {
                let lookup = try await gw.request(.get, "/api/channels/\(id)", auth: app.server)
                return (lookup.json["channel"] as? [String: Any])?["tag_groups"] as? [String: [String]] ?? [:]
            }
            func post(_ body: String) async throws -> TestResponse {
                try await gw.request(.post, "/api/channels/tags", json: body, auth: app.server)
            }
            let add = try await post(
                #"{"audience":{"ios_channel":["\#(one)","\#(two)"]},"add":{"tier":["gold","vip"]}}"#)
            #expect(add.json["channels_updated"] as? Int == 2)
            #expect(try await tags(two) == ["tier": ["gold", "vip"]])
            _ = try await post(#"{"audience":{"ios_channel":"\#(one)"},"remove":{"tier":["vip"],"device":["x"]}}"#)
            #expect(try await tags(one) == ["tier": ["gold"]])
            _ = try await post(#"{"audience":{"ios_channel":"\#(two)"},"set":{"tier":["silver"]}}"#)
            #expect(try await tags(two) == ["tier": ["silver"]])

            let both = try await post(#"{"audience":{"ios_channel":"\#(two)"},"set":{"a":["b"]},"add":{"a":["c"]}}"#)
            #expect(both.status == .badRequest)
            #expect((both.json["details"] as? [String: String])?["path"] == "set")
            #expect(try await tags(two) == ["tier": ["silver"]])

            // Named users are removed explicitly, never by a missing field.
            let lookup = {
                try await gw.request(.get, "/api/channels/\(one)", auth: app.server).json["channel"] as? [String: Any]
            }
            #expect(try await lookup()?["named_user_id"] as? String == "u1")
            #expect(try await gw.request(.delete, "/api/channels/\(one)/named-user", auth: app.device).status == .ok)
            #expect(try await lookup()?["named_user_id"] is NSNull)
        }
    }
}
