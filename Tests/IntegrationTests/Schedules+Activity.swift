import APNsTransport
import Foundation
import HummingbirdTesting
import LiveActivitiesCore
import PostgresStore
import Testing

/// Teak-style scheduled updates of one tracked activity, their cancellation by name, skips, deletes and launches.
@Suite struct ScheduleActivityTests {
    @Test func cancelIsScopedByNameEndedActivitiesAreSkippedAndLaunchesAnswerTheirSchedule() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            let app = e2e.app
            let channel = try await gw.registerChannel(app, installID: "player-1")
            try await gw.track(app, channel: channel, name: "chest_timer_0", token: hexToken(1), systemID: "chest-0")
            try await gw.track(app, channel: channel, name: "chest_timer_1", token: hexToken(2), systemID: "chest-1")
            try await gw.track(app, channel: channel, name: "match", token: hexToken(3), systemID: "match-1")
            func schedule(_ name: String, _ body: String) async throws -> TestResponse {
                try await gw.request(
                    .post, "/api/channels/\(channel)/live-activities/\(name)/updates", json: body, auth: app.device)
            }
            let now = Int(Date().timeIntervalSince1970)
            let a = try await schedule("chest_timer_0", #"{"offset":2,"content_state":{"ready":true}}"#)
            #expect(a.status == .created)
            #expect((a.json["send_at"] as? Int).map { abs($0 - (now + 2)) <= 1 } == true, "\(a.json)")
            _ = try await schedule("chest_timer_0", #"{"send_at":\#(now + 3),"content_state":{"ready":true}}"#)
            let kept = try await schedule(
                "chest_timer_1",
                #"{"offset":2,"content_state":{"ready":true},"schedule_name":"chest_ready","alert":{"title":"Your chest is ready","body":"Open it now"}}"#
            )
            let keptID = try #require(kept.json["schedule_id"] as? String)
            _ = try await schedule("match", #"{"offset":1,"system":{"event":"end","dismissal_date":\#(now + 60)}}"#)

            // Cancel counts exactly the pending updates of that name; chest_timer_1 is untouched.
            let canceled = try await gw.request(
                .delete, "/api/channels/\(channel)/live-activities/chest_timer_0/updates", auth: app.device)
            #expect(canceled.json["canceled"] as? Int == 2)
            let again = try await gw.request(
                .delete, "/api/channels/\(channel)/live-activities/chest_timer_0/updates", auth: app.device)
            #expect(again.json["canceled"] as? Int == 0)

            // The match ends before its scheduled end: the schedule is skipped.
            _ = try await gw.request(.delete, "/api/channels/\(channel)/live-activities/match", auth: app.device)

            // A server schedule deleted before its time never fires.
            let server = try await gw.request(
                .post, "/api/schedules",
                json:
                    #"{"schedule":{"delay_seconds":2},"push":{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"chest_timer_1","content_state":{"x":1}}}}}}"#,
                auth: app.server)
            let serverID = try #require((server.json["schedule_ids"] as? [String])?.first)
            #expect(try await gw.request(.delete, "/api/schedules/\(serverID)", auth: app.server).status == .ok)

            // Every schedule's time has come and each is decided (fired, skipped or canceled).
            #expect(
                try await eventually(timeout: .seconds(20)) {
                    try await gw.database.scalar(
                        "SELECT count(*) FROM schedules WHERE state = 'pending' OR send_at > now()", as: Int64.self)
                        == 0
                })
            let states = try await gw.database.scalar(
                "SELECT string_agg(coalesce(name, activity_name, 'api') || '=' || state, ',' ORDER BY created_at) FROM schedules",
                as: String.self)
            #expect(
                states == "chest_timer_0=canceled,chest_timer_0=canceled,chest_ready=fired,match=skipped,api=canceled")
            #expect(try await e2e.requests(hexToken(1)) == 0)
            #expect(try await e2e.requests(hexToken(3)) == 0)
            let deadline = ContinuousClock.now + .seconds(10)
            while try await e2e.accepted(hexToken(2)) < 1 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(25))
            }
            #expect(try await e2e.accepted(hexToken(2)) == 1)
            let fired = try #require(
                try await e2e.simulator.notifications(token: hexToken(2)).last?["body"] as? [String: Any])
            #expect(
                ((fired["aps"] as? [String: Any])?["alert"] as? [String: String])?["title"] == "Your chest is ready")

            // The tap on chest_timer_1 is attributed to the schedule that last reached it.
            let launch = try await gw.request(
                .post, "/api/channels/\(channel)/launches", json: #"{"system_activity_id":"chest-1"}"#, auth: app.device
            )
            #expect(launch.json["schedule_id"] as? String == keptID)
            #expect(launch.json["schedule_name"] as? String == "chest_ready")
            let unattributed = try await gw.request(
                .post, "/api/channels/\(channel)/launches", json: #"{"system_activity_id":"chest-0"}"#, auth: app.device
            )
            #expect(unattributed.json["schedule_id"] is NSNull)
            let perSchedule = try await gw.database.scalar(
                "SELECT launches FROM launches_per_schedule WHERE schedule_name = 'chest_ready'", as: Int64.self)
            #expect(perSchedule == 1)
        }
    }

    @Test func theIdlePolicySendsExactlyOneEndPerIdleActivity() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            let policy = #"{"idle_end":[{"idle_seconds":600,"dismissal_seconds":300}]}"#
            #expect(
                try await gw.request(.put, "/admin/apps/\(e2e.app.key)/policies", json: policy, auth: gw.admin).status
                    == .ok)
            try await gw.seedActivities(appKey: e2e.app.key, count: 3)
            _ = try await gw.database.scalar(
                """
                WITH u AS (UPDATE live_activities SET started_at = now() - interval '20 minutes'
                           WHERE push_token IN (\(hexToken(1)), \(hexToken(2))) RETURNING 1)
                SELECT count(*) FROM u
                """, as: Int64.self)
            let ender = IdleActivityEnder(database: gw.database)
            #expect(try await ender.endIdle(now: Date()) == 2)
            #expect(try await ender.endIdle(now: Date()) == 0)
            let deadline = ContinuousClock.now + .seconds(15)
            while try await gw.database.scalar(
                "SELECT count(*) FROM live_activities WHERE state = 'ended'", as: Int64.self) < 2,
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(25))
            }
            #expect(try await e2e.accepted(hexToken(1)) == 1)
            #expect(try await e2e.accepted(hexToken(2)) == 1)
            #expect(try await e2e.requests(hexToken(3)) == 0)
            let body = try #require(
                try await e2e.simulator.notifications(token: hexToken(1)).first?["body"] as? [String: Any])
            let aps = try #require(body["aps"] as? [String: Any])
            #expect(aps["event"] as? String == "end")
            #expect(aps["dismissal-date"] != nil)
            #expect(try await ender.endIdle(now: Date()) == 0)
        }
    }

    @Test func anEndTimeGivenAtTrackingEndsTheActivityOnce() async throws {
        try await EndToEndHarness.run(workers: 1) { e2e in
            let gw = e2e.gateway
            let channel = try await gw.registerChannel(e2e.app, installID: "rider-1")
            let endAt = Int(Date().timeIntervalSince1970) + 2
            let body =
                #"{"attributes_type":"DeliveryAttributes","token":"\#(hexToken(1))","system_activity_id":"d-1","end_at":\#(endAt)}"#
            let path = "/api/channels/\(channel)/live-activities/delivery"
            #expect(try await gw.request(.put, path, json: body, auth: e2e.app.device).status == .created)
            // A retry moves nothing and adds nothing.
            #expect(try await gw.request(.put, path, json: body, auth: e2e.app.device).status == .ok)
            #expect(
                try await gw.database.scalar("SELECT count(*) FROM schedules WHERE name = 'end_at'", as: Int64.self)
                    == 1)
            let deadline = ContinuousClock.now + .seconds(15)
            while try await e2e.accepted(hexToken(1)) < 1 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(25))
            }
            let body0 = try #require(
                try await e2e.simulator.notifications(token: hexToken(1)).first?["body"] as? [String: Any])
            #expect((body0["aps"] as? [String: Any])?["event"] as? String == "end")
            #expect(try await e2e.requests(hexToken(1)) == 1)
            let past = #"{"attributes_type":"A","token":"\#(hexToken(2))","system_activity_id":"d-2","end_at":1000}"#
            let refused = try await gw.request(
                .put, "/api/channels/\(channel)/live-activities/other", json: past, auth: e2e.app.device)
            #expect((refused.json["details"] as? [String: String])?["path"] == "end_at")
        }
    }
}
