import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresStore
import Testing

/// Each app's request rates and quotas, set by the operator: beyond a rate 429 with Retry-After, beyond a quota 409
/// naming it, and nothing written.
@Suite struct DeviceEdgeLimitTests {
    static func policy(_ gw: GatewayHarness, _ app: TestApp, _ json: String) async throws {
        let answer = try await gw.request(.put, "/admin/apps/\(app.key)/policies", json: json, auth: gw.admin)
        #expect(answer.status == .ok, "\(answer.text)")
    }

    @Test func aCredentialBeyondItsRateIsTooManyRequests() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await Self.policy(gw, app, #"{"limits":{"device_requests_per_second":5}}"#)
            let channel = try await gw.registerChannel(app, installID: "rated")
            var statuses: [Int] = []
            var limited: TestResponse?
            for _ in 0..<20 {
                let answer = try await gw.request(.get, "/api/broadcast-channels/none", auth: app.device)
                statuses.append(answer.status.code)
                if answer.status == .tooManyRequests { limited = answer }
            }
            #expect(statuses.filter { $0 == 429 }.count >= 10, "\(statuses)")
            let refused = try #require(limited)
            #expect(refused.headers[.retryAfter] == "1")
            #expect(refused.json["error_code"] as? Int == 42901)
            #expect((refused.json["details"] as? [String: String])?["limit"] == "device_requests_per_second")
            // The master secret has a bucket of its own.
            #expect(try await gw.request(.get, "/api/channels/\(channel)", auth: app.server).status == .ok)
            let bad = try await gw.request(
                .put, "/admin/apps/\(app.key)/policies", json: #"{"limits":{"max_schedules":0}}"#, auth: gw.admin)
            #expect((bad.json["details"] as? [String: String])?["path"] == "limits.max_schedules")
        }
    }

    @Test func quotasRefuseAndWriteNothing() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            try await Self.policy(
                gw, app,
                #"{"limits":{"max_pending_updates_per_activity":2,"max_schedules":1,"max_tags_per_channel":3}}"#)
            let channel = try await gw.registerChannel(app, installID: "quota", extra: #","tags":["a","b"]"#)
            try await gw.track(app, channel: channel, name: "match", token: hexToken(1), systemID: "A")
            let update = #"{"offset":600,"content_state":{"n":1}}"#
            let uri = "/api/channels/\(channel)/live-activities/match/updates"
            for _ in 0..<2 {
                #expect(try await gw.request(.post, uri, json: update, auth: app.device).status == .created)
            }
            let third = try await gw.request(.post, uri, json: update, auth: app.device)
            #expect(third.status == .conflict)
            #expect((third.json["details"] as? [String: String])?["quota"] == "max_pending_updates_per_activity")

            let schedule =
                #"{"schedule":{"scheduled_time":"\#(ScheduleFiringTests.iso(Date().addingTimeInterval(30 * 86_400)))"},"push":{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"match","content_state":{}}}}}}"#
            let first = try await gw.request(.post, "/api/schedules", json: schedule, auth: app.server)
            #expect(first.status == .created, "\(first.text)")
            let second = try await gw.request(.post, "/api/schedules", json: schedule, auth: app.server)
            #expect((second.json["details"] as? [String: String])?["quota"] == "max_schedules")
            #expect(try await gw.database.scalar("SELECT count(*) FROM schedules", as: Int64.self) == 3)

            let many = #"{"channel":{"device_type":"ios","install_id":"tagged","tags":["a","b","c","d"]}}"#
            let tagged = try await gw.request(.post, "/api/channels", json: many, auth: app.device)
            #expect((tagged.json["details"] as? [String: String])?["quota"] == "max_tags_per_channel")
            #expect(try await gw.registryRowCounts()["channels"] == 1)
            let add = #"{"audience":{"ios_channel":"\#(channel)"},"add":{"tier":["x","y"]}}"#
            let added = try await gw.request(.post, "/api/channels/tags", json: add, auth: app.server)
            #expect(added.status == .conflict)
            #expect(try await gw.registryRowCounts()["channel_tags"] == 2)
        }
    }
}
