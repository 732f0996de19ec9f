import Foundation
import HTTPTypes
import PostgresStore
import Testing

/// Issue 27's attacks with nothing but the app secret (which ships in the app), each refused with its status and
/// error body, and nothing written.
@Suite struct DeviceEdgeAttackTests {
    static let secretHeader = HTTPField.Name("X-Channel-Secret")!

    /// A device may not give itself a named user or another tag group: 403 naming the field, no channel written.
    /// The app's policy may allow them; the master secret writes everything.
    @Test func aDeviceWritesOnlyWhatItsAppAllows() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let named = #"{"channel":{"device_type":"ios","install_id":"x-1","named_user_id":"alice"}}"#
            let refused = try await gw.request(.post, "/api/channels", json: named, auth: app.device)
            #expect(refused.status == .forbidden)
            #expect(refused.json["error_code"] as? Int == 40301)
            #expect((refused.json["details"] as? [String: String])?["path"] == "channel.named_user_id")
            let grouped = #"{"channel":{"device_type":"ios","install_id":"x-1","tag_groups":{"crm":["vip"]}}}"#
            let refusedGroup = try await gw.request(.post, "/api/channels", json: grouped, auth: app.device)
            #expect(refusedGroup.status == .forbidden)
            #expect((refusedGroup.json["details"] as? [String: String])?["path"] == "channel.tag_groups.crm")
            #expect(try await gw.registryRowCounts()["channels"] == 0)

            // Device tags are the device's; the server may set the rest.
            let tags = #"{"channel":{"device_type":"ios","install_id":"x-1","tags":["a"]}}"#
            #expect(try await gw.request(.post, "/api/channels", json: tags, auth: app.device).status == .created)
            #expect(try await gw.request(.post, "/api/channels", json: grouped, auth: app.server).status == .ok)

            // An app that lets devices write a group and their named user.
            let policy = #"{"device_tag_groups":["device","crm"],"device_named_user":true}"#
            #expect(
                try await gw.request(.put, "/admin/apps/\(app.key)/policies", json: policy, auth: gw.admin).status
                    == .ok)
            let both =
                #"{"channel":{"device_type":"ios","install_id":"x-2","named_user_id":"bob","tag_groups":{"crm":["a"]}}}"#
            #expect(try await gw.request(.post, "/api/channels", json: both, auth: app.device).status == .created)
            let other = #"{"channel":{"device_type":"ios","install_id":"x-3","tag_groups":{"tier":["gold"]}}}"#
            let stillRefused = try await gw.request(.post, "/api/channels", json: other, auth: app.device)
            #expect((stillRefused.json["details"] as? [String: String])?["path"] == "channel.tag_groups.tier")
        }
    }

    /// Another device's install id does not reveal its channel nor change it; without the channel's secret no device
    /// route on it does anything (404, as for an unknown channel).
    @Test func anotherDevicesChannelNeedsItsSecret() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channel = try await gw.registerChannel(app, installID: "victim")
            #expect(gw.channelSecrets[channel]?.count == 43)
            try await gw.track(app, channel: channel, name: "match", token: hexToken(1), systemID: "A")
            let before = try await gw.registryRowCounts()

            let again = #"{"channel":{"device_type":"ios","install_id":"victim","opt_in":true}}"#
            for headers: HTTPFields in [[:], [Self.secretHeader: "wrong"]] {
                let repeated = try await gw.request(
                    .post, "/api/channels", json: again, auth: app.device, headers: headers)
                #expect(repeated.status == .conflict)
                #expect(repeated.json["channel_id"] == nil && repeated.json["channel_secret"] == nil)
                #expect((repeated.json["details"] as? [String: String])?["path"] == "channel.install_id")
            }
            #expect(try await gw.database.scalar("SELECT opt_in FROM channels", as: Bool.self) == false)

            let base = "/api/channels/\(channel)"
            let token = #"{"token":"\#(hexToken(2))"}"#
            let tracking = #"{"attributes_type":"X","token":"\#(hexToken(3))","system_activity_id":"Z"}"#
            let calls: [(HTTPRequest.Method, String, String?)] = [
                (.delete, base, nil), (.put, base, #"{"channel":{"opt_in":true}}"#),
                (.delete, "\(base)/named-user", nil),
                (.put, "\(base)/push-to-start/X", token), (.delete, "\(base)/push-to-start/X", nil),
                (.put, "\(base)/live-activities/match", tracking), (.delete, "\(base)/live-activities/match", nil),
                (.post, "\(base)/live-activities/reconcile", #"{"system_activity_ids":[]}"#),
                (.post, "\(base)/live-activities/match/updates", #"{"offset":60,"content_state":{}}"#),
                (.delete, "\(base)/live-activities/match/updates", nil),
                (.post, "\(base)/launches", #"{"system_activity_id":"A"}"#),
            ]
            for (method, uri, body) in calls {
                for headers: HTTPFields in [[:], [Self.secretHeader: "wrong"]] {
                    let answer = try await gw.request(
                        method, uri, json: body, auth: app.device, headers: headers, presentSecret: false)
                    #expect(answer.status == .notFound, "\(method) \(uri): \(answer.text)")
                    #expect(answer.json["error_code"] as? Int == 40401)
                }
            }
            #expect(try await gw.registryRowCounts() == before)
            #expect(try await gw.database.scalar("SELECT count(*) FROM schedules", as: Int64.self) == 0)
            // With its secret, the device's own calls work; the master secret needs none.
            #expect(
                try await gw.request(.put, "\(base)/push-to-start/X", json: token, auth: app.device).status == .created)
            #expect(try await gw.request(.get, base, auth: app.server).status == .ok)
        }
    }

    /// A NUL (which PostgreSQL cannot store) or another control character is a 400 naming the field, never a 500.
    @Test func controlCharactersAreRefusedByPath() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let nul = #"{"channel":{"device_type":"ios","install_id":"a\u0000b"}}"#
            let refused = try await gw.request(.post, "/api/channels", json: nul, auth: app.device)
            #expect(refused.status == .badRequest)
            #expect((refused.json["details"] as? [String: String])?["path"] == "channel.install_id")
            let channel = try await gw.registerChannel(app, installID: "ok")
            try await gw.track(app, channel: channel, name: "match", token: hexToken(1), systemID: "A")
            let push =
                #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"match","content_state":{"score":"1\u0000"}}}}}"#
            let bad = try await gw.request(.post, "/api/push", json: push, auth: app.server)
            #expect(bad.status == .badRequest)
            #expect(
                (bad.json["details"] as? [String: String])?["path"]
                    == "notification.ios.live_activity.content_state.score")
            let tab = #"{"channel":{"device_type":"ios","install_id":"tab\there"}}"#
            let named = try await gw.request(.post, "/api/channels", json: tab, auth: app.device)
            #expect((named.json["details"] as? [String: String])?["path"] == "channel.install_id")
            let url = try await gw.request(.get, "/admin/apps/%00", auth: gw.admin)
            #expect(url.status == .badRequest)
            #expect((url.json["details"] as? [String: String])?["path"] == "url")
            #expect(try await gw.registryRowCounts()["channels"] == 1)
        }
    }

    /// A channel from before channel secrets takes device calls without one until a registration claims it; then
    /// only its secret does.
    @Test func aChannelFromBeforeSecretsIsClaimedOnce() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channel = try await gw.registerChannel(app, installID: "old")
            _ = try await gw.database.client.query("UPDATE channels SET secret_hash = NULL")
            let token = #"{"token":"\#(hexToken(2))"}"#
            let uri = "/api/channels/\(channel)/push-to-start/X"
            #expect(
                try await gw.request(.put, uri, json: token, auth: app.device, presentSecret: false).status == .created)

            let registration = #"{"channel":{"device_type":"ios","install_id":"old"}}"#
            let claimed = try await gw.request(.post, "/api/channels", json: registration, auth: app.device)
            #expect(claimed.status == .ok)
            #expect(claimed.json["channel_id"] as? String == channel)
            let secret = try #require(claimed.json["channel_secret"] as? String)
            #expect(
                try await gw.request(.post, "/api/channels", json: registration, auth: app.device).status == .conflict)
            #expect(
                try await gw.request(.put, uri, json: token, auth: app.device, presentSecret: false).status == .notFound
            )
            #expect(
                try await gw.request(.put, uri, json: token, auth: app.device, headers: [Self.secretHeader: secret])
                    .status == .ok)
        }
    }
}
