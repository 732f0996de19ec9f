import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct RegistryForgetTests {
    @Test func forgetRemovesEveryRowOfTheChannelAndNothingElse() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channel = try await gw.registerChannel(
                app, installID: "device-1", extra: #","tags":["a","b"],"tag_groups":{"tier":["gold"]}"#)
            let other = try await gw.registerChannel(app, installID: "device-2", extra: #","tags":["a"]"#)
            for id in [channel, other] {
                #expect(
                    try await gw.request(
                        .put, "/api/channels/\(id)/push-to-start/ChestAttributes",
                        json: #"{"token":"\#(hexToken(9))"}"#,
                        auth: app.device
                    ).status == .created)
                try await gw.track(
                    app, channel: id, name: "match", token: hexToken(id == channel ? 1 : 2), systemID: "A")
            }
            try await gw.track(app, channel: channel, name: "match", token: hexToken(3), systemID: "B")  // replaces A
            let later = #"{"offset":3600,"content_state":{"home":1}}"#
            #expect(
                try await gw.request(
                    .post, "/api/channels/\(channel)/live-activities/match/updates", json: later, auth: app.device
                )
                .status == .created)

            // A start attempt on each (no foreign key: a trigger removes a forgotten channel's attempts).
            _ = try await gw.database.client.query(
                """
                INSERT INTO start_attempts (push_id, app_id, channel_id, name, attributes_type, token, window_until,
                                            push_created_at)
                SELECT gen_random_uuid(), app_id, id, 'match', 'ChestAttributes', \(hexToken(9)), now(), now()
                FROM channels WHERE id IN (\(UUID(uuidString: channel)!), \(UUID(uuidString: other)!))
                """)
            let before = try await gw.registryRowCounts()
            let forget = try await gw.request(.delete, "/api/channels/\(channel)", auth: app.device)
            #expect(forget.status == .ok)
            let removed = try #require(forget.json["removed"] as? [String: Int])
            #expect(
                removed == [
                    "channels": 1, "tags": 3, "push_to_start_tokens": 1, "live_activities": 2, "pending_schedules": 1,
                ])

            #expect(try await gw.registryRowCounts(channel: channel).values.allSatisfy { $0 == 0 })
            #expect(try await gw.database.scalar("SELECT count(*) FROM schedules", as: Int64.self) == 0)
            #expect(
                try await gw.database.scalar("SELECT count(*) FROM jobs WHERE kind = 'schedule.fire'", as: Int64.self)
                    == 0)
            let after = try await gw.registryRowCounts()
            #expect(after["channels"] == before["channels"]! - 1)
            #expect(after["live_activities"] == 1)
            #expect(
                try await gw.database.scalar(
                    "SELECT string_agg(channel_id::text, ',') FROM start_attempts", as: String.self)
                    == other.lowercased())
            #expect(try await gw.request(.get, "/api/channels/\(other)", auth: app.server).status == .ok)

            // Forgetting again: the channel is gone.
            #expect(try await gw.request(.delete, "/api/channels/\(channel)", auth: app.device).status == .notFound)
        }
    }

    @Test func anotherTenantCannotTouchTheRegistryOfAChannel() async throws {
        try await GatewayHarness.run { gw in
            let a = try await gw.createApp(name: "A", bundleID: "com.example.a")
            let b = try await gw.createApp(name: "B", bundleID: "com.example.b")
            let channel = try await gw.registerChannel(a, installID: "device-1")
            try await gw.track(a, channel: channel, name: "match", token: hexToken(1), systemID: "A")
            let before = try await gw.registryRowCounts()

            let base = "/api/channels/\(channel)"
            let token = #"{"token":"\#(hexToken(2))"}"#
            let tracking = #"{"attributes_type":"X","token":"\#(hexToken(2))","system_activity_id":"Z"}"#
            for auth in [b.device, b.server] {
                #expect(
                    try await gw.request(.put, "\(base)/push-to-start/X", json: token, auth: auth).status == .notFound)
                #expect(try await gw.request(.delete, "\(base)/push-to-start/X", auth: auth).status == .notFound)
                #expect(
                    try await gw.request(.put, "\(base)/live-activities/match", json: tracking, auth: auth).status
                        == .notFound)
                #expect(try await gw.request(.delete, "\(base)/live-activities/match", auth: auth).status == .notFound)
                let reconcile = #"{"system_activity_ids":[]}"#
                #expect(
                    try await gw.request(.post, "\(base)/live-activities/reconcile", json: reconcile, auth: auth).status
                        == .notFound)
                #expect(try await gw.request(.delete, base, auth: auth).status == .notFound)
            }
            let tags = #"{"audience":{"ios_channel":"\#(channel)"},"add":{"tier":["stolen"]}}"#
            let changed = try await gw.request(.post, "/api/channels/tags", json: tags, auth: b.server)
            #expect(changed.json["channels_updated"] as? Int == 0)
            #expect(changed.json["unknown_channels"] as? [String] == [channel])
            #expect(try await gw.request(.post, "/api/channels/tags", json: tags, auth: a.device).status == .forbidden)

            #expect(try await gw.registryRowCounts() == before)
            #expect(try await gw.targetedTokens(name: "match") == [hexToken(1)])
        }
    }
}
