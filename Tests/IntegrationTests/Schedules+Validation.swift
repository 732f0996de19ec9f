import Foundation
import Testing

@Suite struct ScheduleValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var label: String
        var path: String
        var body: String
        var field: String
        var testDescription: String { self.label }
    }

    static let past = Int(Date().timeIntervalSince1970) - 3600
    static let push =
        #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"end","name":"m"}}}}"#
    static let cases: [Case] = [
        Case(
            label: "negative offset", path: "updates", body: #"{"offset":-5,"content_state":{"a":1}}"#, field: "offset"),
        Case(
            label: "send_at in the past", path: "updates", body: #"{"send_at":\#(past),"content_state":{"a":1}}"#,
            field: "send_at"),
        Case(
            label: "offset and send_at", path: "updates", body: #"{"offset":5,"send_at":\#(past),"content_state":{}}"#,
            field: "offset"),
        Case(
            label: "unknown field", path: "updates", body: #"{"offset":5,"content_state":{},"colour":1}"#,
            field: "colour"),
        Case(
            label: "start is not an update", path: "updates",
            body: #"{"offset":5,"content_state":{},"system":{"event":"start"}}"#, field: "system.event"),
        Case(label: "update without content", path: "updates", body: #"{"offset":5}"#, field: "content_state"),
        Case(
            label: "api: time in the past", path: "api",
            body: #"{"schedule":{"scheduled_time":"2020-01-01T00:00:00Z"},"push":\#(push)}"#,
            field: "schedule.scheduled_time"),
        Case(
            label: "api: not ISO-8601", path: "api",
            body: #"{"schedule":{"scheduled_time":"tomorrow"},"push":\#(push)}"#,
            field: "schedule.scheduled_time"),
        Case(
            label: "api: negative delay", path: "api", body: #"{"schedule":{"delay_seconds":-1},"push":\#(push)}"#,
            field: "schedule.delay_seconds"),
        Case(
            label: "api: bad push", path: "api",
            body:
                #"{"schedule":{"delay_seconds":5},"push":{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"m"}}}}}"#,
            field: "push.notification.ios.live_activity.content_state"),
    ]

    @Test(arguments: cases) func badInputIsA400NamingTheFieldAndSchedulesNothing(_ c: Case) async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channel = try await gw.registerChannel(app, installID: "d")
            try await gw.track(app, channel: channel, name: "m", token: hexToken(1), systemID: "s")
            let response =
                c.path == "api"
                ? try await gw.request(.post, "/api/schedules", json: c.body, auth: app.server)
                : try await gw.request(
                    .post, "/api/channels/\(channel)/live-activities/m/updates", json: c.body, auth: app.device)
            #expect(response.status == .badRequest, "\(response.text)")
            #expect((response.json["details"] as? [String: String])?["path"] == c.field, "\(response.text)")
            #expect(try await gw.database.scalar("SELECT count(*) FROM schedules", as: Int64.self) == 0)
            #expect(
                try await gw.database.scalar("SELECT count(*) FROM jobs WHERE kind = 'schedule.fire'", as: Int64.self)
                    == 0)
        }
    }

    @Test func updatingAPendingScheduleMovesItsJobAndAFiredOneIsAConflict() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let created = try await gw.request(
                .post, "/api/schedules",
                json: #"{"name":"kickoff","schedule":{"delay_seconds":600},"push":\#(Self.push)}"#,
                auth: app.server)
            let id = try #require((created.json["schedule_ids"] as? [String])?.first)
            // A time without an offset is UTC.
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
            let later = Date().addingTimeInterval(30 * 86400)
            let moved = try await gw.request(
                .put, "/api/schedules/\(id)",
                json:
                    #"{"name":"kickoff","schedule":{"scheduled_time":"\#(formatter.string(from: later))"},"push":\#(Self.push)}"#,
                auth: app.server)
            #expect(moved.status == .ok)
            let runAt = try await gw.database.scalar(
                "SELECT to_char(run_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') FROM jobs WHERE kind = 'schedule.fire'",
                as: String.self)
            formatter.dateFormat = "yyyy-MM-dd HH:mm"
            #expect(runAt == formatter.string(from: later))
            let listed = try await gw.request(.get, "/api/schedules", auth: app.server)
            #expect((listed.json["schedules"] as? [[String: Any]])?.count == 1)
            _ = try await gw.database.scalar(
                "WITH u AS (UPDATE schedules SET state = 'fired' RETURNING 1) SELECT count(*) FROM u", as: Int64.self)
            #expect(try await gw.request(.delete, "/api/schedules/\(id)", auth: app.server).status == .conflict)
            let other = try await gw.createApp(name: "B", bundleID: "com.example.b")
            #expect(try await gw.request(.get, "/api/schedules/\(id)", auth: other.server).status == .notFound)
        }
    }
}
