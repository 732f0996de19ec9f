import APNsBroadcast
import APNsCommon
import APNsTransport
import Foundation
import PostgresStore
import Testing

/// Broadcast channels by name, end to end: the gateway, a worker, the simulator's broadcast API (Apple's checks) and
/// PostgreSQL.
@Suite struct BroadcastChannelTests {
    static func update(name: String, delivery: String? = nil, audience: String = #""all""#, extra: String = "")
        -> String
    {
        let mode = delivery.map { #","delivery":"\#($0)""# } ?? ""
        return """
            {"audience":\(audience),"device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update",
             "name":"\(name)","content_state":{"score":"1-0"}\(mode)\(extra)}}}}
            """
    }

    static func escaped(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id
    }

    @Test func createRepeatListDeleteFollowApple() async throws {
        try await EndToEndHarness.run(workers: 0) { e2e in
            let gw = e2e.gateway
            let created = try await gw.request(
                .put, "/api/broadcast-channels/match-42", json: #"{"storage":"latest"}"#, auth: e2e.app.server)
            #expect(created.status == .created, "\(created.text)")
            let channel = created.json["broadcast_channel"] as? [String: Any] ?? [:]
            let id = try #require(channel["channel_id"] as? String)
            #expect(channel["storage"] as? String == "latest")
            #expect(channel["environment"] as? String == "development")
            let apple = try await e2e.simulator.admin(.GET, "/channels?bundle_id=\(EndToEndHarness.bundleID)")
            let listed = (apple as? [String: Any])?["channels"] as? [[String: Any]] ?? []
            #expect(listed.map { $0["channel_id"] as? String } == [id])
            #expect(listed.first?["message_storage_policy"] as? Int == 1)

            let again = try await gw.request(
                .put, "/api/broadcast-channels/match-42", json: #"{"storage":"latest"}"#, auth: e2e.app.server)
            #expect(again.status == .ok)
            #expect((again.json["broadcast_channel"] as? [String: Any])?["channel_id"] as? String == id)
            let otherPolicy = try await gw.request(
                .put, "/api/broadcast-channels/match-42", json: #"{"storage":"none"}"#, auth: e2e.app.server)
            #expect(otherPolicy.status == .conflict, "\(otherPolicy.text)")

            // A device may read one channel (to subscribe an activity it starts), not create, list or delete.
            let read = try await gw.request(.get, "/api/broadcast-channels/match-42", auth: e2e.app.device)
            #expect(read.status == .ok)
            let byDevice = try await gw.request(
                .put, "/api/broadcast-channels/other", json: "{}", auth: e2e.app.device)
            #expect(byDevice.status == .forbidden)

            let page = try await gw.request(.get, "/api/broadcast-channels", auth: e2e.app.server)
            #expect(page.json["used"] as? Int == 1)
            #expect(page.json["limit"] as? Int == 10_000)

            let deleted = try await gw.request(.delete, "/api/broadcast-channels/match-42", auth: e2e.app.server)
            #expect(deleted.status == .ok)
            #expect(deleted.json["deleted"] as? Int == 1)
            let after = try await e2e.simulator.admin(.GET, "/channels?bundle_id=\(EndToEndHarness.bundleID)")
            #expect(((after as? [String: Any])?["channels"] as? [Any])?.isEmpty == true)
            let gone = try await gw.request(.get, "/api/broadcast-channels/match-42", auth: e2e.app.server)
            #expect(gone.status == .notFound)
        }
    }

    @Test func appleLimitIsAConflictNamingIt() async throws {
        try await EndToEndHarness.run(workers: 0) { e2e in
            try await e2e.simulator.configure(["max_channels": 1])
            let first = try await e2e.gateway.request(
                .put, "/api/broadcast-channels/a", json: "{}", auth: e2e.app.server)
            #expect(first.status == .created)
            let second = try await e2e.gateway.request(
                .put, "/api/broadcast-channels/b", json: "{}", auth: e2e.app.server)
            #expect(second.status == .conflict, "\(second.text)")
            #expect(second.json["error_code"] as? Int == 40901)
            #expect((second.json["details"] as? [String: String])?["limit"] == "10000")
        }
    }

    /// Three instances subscribed to the channel (no token) and two tracked with tokens, under `both`: exactly one
    /// broadcast request and two token requests.
    @Test func bothSendsOneBroadcastAndTokensOnlyToUnsubscribed() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            let created = try await gw.request(
                .put, "/api/broadcast-channels/final", json: #"{"storage":"none"}"#, auth: e2e.app.server)
            let id = try #require((created.json["broadcast_channel"] as? [String: Any])?["channel_id"] as? String)
            for n in 1...5 {
                let channel = try await gw.registerChannel(e2e.app, installID: "fan-\(n)")
                let how = n <= 3 ? #""broadcast_channel_id":"\#(id)""# : #""token":"\#(hexToken(n))""#
                let tracked = try await gw.request(
                    .put, "/api/channels/\(channel)/live-activities/final",
                    json: #"{"attributes_type":"MatchAttributes",\#(how),"system_activity_id":"s-\#(n)"}"#,
                    auth: e2e.app.device)
                #expect(tracked.status == .ok || tracked.status == .created, "\(tracked.text)")
            }
            let pushID = try await e2e.send(Self.update(name: "final", delivery: "both"))
            let report = try await e2e.finished(pushID)
            #expect(report["state"] as? String == "done", "\(report)")
            #expect(report["delivery"] as? String == "both")
            let broadcast = report["broadcast"] as? [String: Any] ?? [:]
            #expect(broadcast["status"] as? Int == 200, "\(report)")
            #expect(broadcast["channel_id"] as? String == id)
            #expect((broadcast["apns_unique_id"] as? String)?.isEmpty == false)
            #expect((report["counts"] as? [String: Int])?["targeted"] == 2)
            let sent = try await e2e.simulator.admin(.GET, "/broadcasts?channel_id=\(Self.escaped(id))") as? [Any]
            #expect(sent?.count == 1)
            for n in 1...5 { #expect(try await e2e.accepted(hexToken(n)) == (n <= 3 ? 0 : 1), "instance \(n)") }

            // `auto` with audience all: the broadcast alone.
            let autoID = try await e2e.send(Self.update(name: "final"))
            let auto = try await e2e.finished(autoID)
            #expect(auto["delivery"] as? String == "broadcast", "\(auto)")
            #expect((auto["counts"] as? [String: Int])?["targeted"] == 0)
            let all = try await e2e.simulator.admin(.GET, "/broadcasts?channel_id=\(Self.escaped(id))") as? [Any]
            #expect(all?.count == 2)
            // Another audience goes by tokens.
            let tagged = try await e2e.send(Self.update(name: "final", audience: #"{"tag":"nobody"}"#))
            #expect(try await e2e.finished(tagged)["delivery"] as? String == "tokens")
        }
    }

    @Test func startToANameWithAChannelSubscribesIt() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            let created = try await gw.request(
                .put, "/api/broadcast-channels/match-7", json: "{}", auth: e2e.app.server)
            let id = try #require((created.json["broadcast_channel"] as? [String: Any])?["channel_id"] as? String)
            let channel = try await gw.registerChannel(e2e.app, installID: "starter")
            let token = hexToken(77)
            let registered = try await gw.request(
                .put, "/api/channels/\(channel)/push-to-start/MatchAttributes", json: #"{"token":"\#(token)"}"#,
                auth: e2e.app.device)
            #expect(registered.status.code < 300, "\(registered.text)")
            let start = """
                {"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"start",
                 "name":"match-7","attributes_type":"MatchAttributes","attributes":{"home":"A"},
                 "content_state":{"score":"0-0"},"alert":{"title":"Kick-off","body":"A v B"}}}}}
                """
            let report = try await e2e.finished(try await e2e.send(start))
            #expect(report["delivery"] as? String == "tokens", "\(report)")
            let notes = try await e2e.simulator.notifications(token: token)
            let aps = (notes.first?["body"] as? [String: Any])?["aps"] as? [String: Any] ?? [:]
            #expect(aps["input-push-channel"] as? String == id, "\(notes)")
            #expect(aps["input-push-token"] == nil)
        }
    }

    @Test func rulesThatDependOnTheChannelNameTheirField() async throws {
        try await EndToEndHarness.run(workers: 0) { e2e in
            let gw = e2e.gateway
            _ = try await gw.request(.put, "/api/broadcast-channels/quiet", json: "{}", auth: e2e.app.server)
            let cases: [(String, String)] = [
                (Self.update(name: "nochannel", delivery: "broadcast"), "notification.ios.live_activity.delivery"),
                (
                    Self.update(name: "quiet", delivery: "both", audience: #"{"tag":"vip"}"#), "audience"
                ),
                (
                    Self.update(name: "quiet", extra: #","expiration":1900000000"#),
                    "notification.ios.live_activity.expiration"
                ),
                (
                    Self.update(name: "quiet", audience: #"{"tag":"vip"}"#, extra: #","priority":1"#),
                    "notification.ios.live_activity.priority"
                ),
                (
                    Self.update(name: "quiet", delivery: "tokens", extra: #","priority":1"#),
                    "notification.ios.live_activity.priority"
                ),
            ]
            for (body, path) in cases {
                let response = try await e2e.push(body)
                #expect(response.status == .badRequest, "\(path): \(response.text)")
                #expect((response.json["details"] as? [String: String])?["path"] == path, "\(response.text)")
            }
            let accepted = try await e2e.push(Self.update(name: "quiet", extra: #","priority":1,"expiration":0"#))
            #expect(accepted.status == .accepted, "\(accepted.text)")
        }
    }
}

@Suite struct BroadcastMaintenanceTests {
    /// An idle channel (no push, no tracked instance for the app's policy) is deleted at Apple and here; a channel
    /// an instance is tracked on stays; a channel only Apple knows is reported, not deleted (no opt-in).
    @Test func idleChannelsGoAndDriftIsReported() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            let policy = try await gw.request(
                .put, "/admin/apps/\(e2e.app.key)/policies", json: #"{"broadcast_idle_seconds":60}"#, auth: gw.admin)
            #expect(policy.status == .ok, "\(policy.text)")
            var ids: [String: String] = [:]
            for name in ["idle", "followed"] {
                let created = try await gw.request(
                    .put, "/api/broadcast-channels/\(name)", json: "{}", auth: e2e.app.server)
                ids[name] = (created.json["broadcast_channel"] as? [String: Any])?["channel_id"] as? String
            }
            let device = try await gw.registerChannel(e2e.app, installID: "follower")
            _ = try await gw.request(
                .put, "/api/channels/\(device)/live-activities/followed",
                json:
                    #"{"attributes_type":"MatchAttributes","broadcast_channel_id":"\#(ids["followed"]!)","system_activity_id":"f"}"#,
                auth: e2e.app.device)
            // A channel another system made under the same bundle id.
            let foreign = try await e2e.simulator.admin(.GET, "/channels?bundle_id=\(EndToEndHarness.bundleID)")
            #expect(((foreign as? [String: Any])?["channels"] as? [Any])?.count == 2)
            let broadcast = APNsBroadcastClient(
                endpoints: .init(manage: APNsEndpoint(host: "127.0.0.1", port: e2e.simulator.simulator.broadcastPort)),
                trustRoots: e2e.simulator.simulator.trustRoots)
            let made = try await broadcast.createChannel(
                bundleID: EndToEndHarness.bundleID, storage: 0, credentials: e2e.simulator.credentials)
            await broadcast.shutdown()
            let foreignID = try #require(made.channelID)

            try await gw.database.client.query(
                "UPDATE broadcast_channels SET created_at = now() - interval '2 hours'",
                logger: gw.database.logger)
            _ = try await PostgresJobQueue(database: gw.database).enqueue([
                JobRequest(kind: .broadcastMaintenance, appID: 0, runAt: Date(), priority: 0, maxAttempts: 1)
            ])
            let deadline = ContinuousClock.now + .seconds(30)
            // Done when Apple's list is down to the two that stay and the gateway forgot the idle one (deleted at
            // Apple first, then here).
            var left: [String] = []
            var gone = try await gw.request(.get, "/api/broadcast-channels/idle", auth: e2e.app.server)
            repeat {
                try await Task.sleep(for: .milliseconds(25))
                let apple = try await e2e.simulator.admin(.GET, "/channels?bundle_id=\(EndToEndHarness.bundleID)")
                left = ((apple as? [String: Any])?["channels"] as? [[String: Any]] ?? []).compactMap {
                    $0["channel_id"] as? String
                }
                gone = try await gw.request(.get, "/api/broadcast-channels/idle", auth: e2e.app.server)
            } while (left.count > 2 || gone.status != .notFound) && ContinuousClock.now < deadline
            #expect(Set(left) == [ids["followed"]!, foreignID], "\(e2e.workers.logs())")
            #expect(gone.status == .notFound)
            var drift: [(String, String)] = []
            repeat {
                drift = []
                let rows = try await gw.database.client.query(
                    "SELECT channel_id, side FROM broadcast_channel_drift", logger: gw.database.logger)
                for try await row in rows.decode((String, String).self) { drift.append(row) }
                if drift.isEmpty { try await Task.sleep(for: .milliseconds(25)) }
            } while drift.isEmpty && ContinuousClock.now < deadline
            #expect(drift.map(\.0) == [foreignID] && drift.map(\.1) == ["apple_only"], "\(drift)")
        }
    }
}
