import Foundation
import HTTPTypes
import Testing

@Suite struct PushAPIValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var label: String
        var liveActivity: String
        var field: String
        var audience = #""all""#
        var deviceTypes = #"["ios"]"#
        var testDescription: String { self.label }
    }

    static let cases: [Case] = [
        Case(
            label: "start without attributes_type",
            liveActivity: #"{"event":"start","attributes":{},"content_state":{},"alert":{"title":"t","body":"b"}}"#,
            field: "notification.ios.live_activity.attributes_type"),
        Case(
            label: "start without alert body",
            liveActivity:
                #"{"event":"start","attributes_type":"A","attributes":{},"content_state":{},"alert":{"title":"t"}}"#,
            field: "notification.ios.live_activity.alert.body"),
        Case(
            label: "update without name", liveActivity: #"{"event":"update","content_state":{}}"#,
            field: "notification.ios.live_activity.name"),
        Case(
            label: "update without content_state", liveActivity: #"{"event":"update","name":"m"}"#,
            field: "notification.ios.live_activity.content_state"),
        Case(
            label: "end without name", liveActivity: #"{"event":"end"}"#, field: "notification.ios.live_activity.name"),
        Case(
            label: "dismissal_date on update",
            liveActivity: #"{"event":"update","name":"m","content_state":{},"dismissal_date":1800000000}"#,
            field: "notification.ios.live_activity.dismissal_date"),
        Case(
            label: "priority 7", liveActivity: #"{"event":"update","name":"m","content_state":{},"priority":7}"#,
            field: "notification.ios.live_activity.priority"),
        Case(
            label: "milliseconds",
            liveActivity: #"{"event":"update","name":"m","content_state":{},"stale_date":1800000000000}"#,
            field: "notification.ios.live_activity.stale_date"),
        Case(
            label: "timestamp more than 60 s ahead",
            liveActivity:
                #"{"event":"update","name":"m","content_state":{},"timestamp":\#(Int(Date().timeIntervalSince1970) + 86_400)}"#,
            field: "notification.ios.live_activity.timestamp"),
        Case(
            label: "sound without title",
            liveActivity: #"{"event":"update","name":"m","content_state":{},"alert":{"body":"b","sound":"s.caf"}}"#,
            field: "notification.ios.live_activity.alert.sound"),
        Case(
            label: "payload over 4096 bytes",
            liveActivity:
                #"{"event":"update","name":"m","content_state":{"text":"\#(String(repeating: "x", count: 4100))"}}"#,
            field: "notification.ios.live_activity"),
        Case(
            label: "unknown field", liveActivity: #"{"event":"update","name":"m","content_state":{},"colour":"red"}"#,
            field: "notification.ios.live_activity.colour"),
        Case(
            label: "bad event", liveActivity: #"{"event":"pause","name":"m"}"#,
            field: "notification.ios.live_activity.event"),
        Case(
            label: "bad selector", liveActivity: #"{"event":"end","name":"m"}"#, field: "audience.or[1]",
            audience: #"{"or":[{"tag":"a"},{"tag":"b","named_user":"c"}]}"#),
        Case(
            label: "bad channel id", liveActivity: #"{"event":"end","name":"m"}"#, field: "audience.ios_channel[0]",
            audience: #"{"ios_channel":["nope"]}"#),
        Case(
            label: "android", liveActivity: #"{"event":"end","name":"m"}"#, field: "device_types",
            deviceTypes: #"["android"]"#),
    ]

    @Test(arguments: cases) func badInputIsA400NamingTheFieldAndEnqueuesNothing(_ c: Case) async throws {
        try await GatewayHarness.run(maxBodyBytes: 16 * 1024) { gw in
            let app = try await gw.createApp()
            let body = """
                {"audience":\(c.audience),"device_types":\(c.deviceTypes),
                 "notification":{"ios":{"live_activity":\(c.liveActivity)}}}
                """
            for path in ["/api/push", "/api/push/validate"] {
                let response = try await gw.request(.post, path, json: body, auth: app.server)
                #expect(response.status == .badRequest, "\(response.text)")
                #expect((response.json["details"] as? [String: String])?["path"] == c.field, "\(response.text)")
            }
            if c.label.hasPrefix("payload") {
                let response = try await gw.request(.post, "/api/push", json: body, auth: app.server)
                #expect((response.json["details"] as? [String: String])?["rule"]?.contains("4") == true)
                #expect(response.text.contains("bytes"))
            }
            #expect(try await gw.database.scalar("SELECT count(*) FROM pushes", as: Int64.self) == 0)
            #expect(
                try await gw.database.scalar("SELECT count(*) FROM jobs WHERE kind LIKE 'push.%'", as: Int64.self) == 0)
        }
    }

    static let valid =
        #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"end","name":"m"}}}}"#

    @Test func idempotentRepeatsReturnTheFirstAnswerAndEnqueueNothingNew() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: "order-42"]
            let first = try await gw.request(.post, "/api/push", json: Self.valid, auth: app.server, headers: key)
            let again = try await gw.request(.post, "/api/push", json: Self.valid, auth: app.server, headers: key)
            #expect(first.status == .accepted)
            #expect(again.status == .accepted)
            #expect(first.text == again.text)
            #expect(try await gw.database.scalar("SELECT count(*) FROM pushes", as: Int64.self) == 1)
            #expect(try await gw.database.scalar("SELECT count(*) FROM jobs", as: Int64.self) == 1)
            // A list of pushes is one operation with a push id each.
            let list = try await gw.request(.post, "/api/push", json: "[\(Self.valid),\(Self.valid)]", auth: app.server)
            #expect((list.json["push_ids"] as? [String])?.count == 2)
            // The app secret may not push.
            #expect(try await gw.request(.post, "/api/push", json: Self.valid, auth: app.device).status == .forbidden)
        }
    }

    /// A timestamp far ahead would make iOS ignore every later update to those activities (it ignores a payload
    /// older than the last one applied): at most 60 s ahead of the server's clock, or of a schedule's send time.
    @Test func aTimestampAheadOfTheClockIsNamedInListsAndSchedules() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let now = Int(Date().timeIntervalSince1970)
            let push = { (ahead: Int) in
                #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":"#
                    + #"{"event":"end","name":"m","timestamp":\#(now + ahead)}}}}"#
            }
            let list = try await gw.request(.post, "/api/push", json: "[\(push(0)),\(push(600))]", auth: app.server)
            #expect(list.status == .badRequest)
            #expect(
                (list.json["details"] as? [String: String])?["path"] == "[1].notification.ios.live_activity.timestamp")
            #expect(try await gw.request(.post, "/api/push", json: push(50), auth: app.server).status == .accepted)
            // A schedule's push may carry the timestamp of its send time, not more than 60 s beyond it.
            let later = #"{"schedule":{"delay_seconds":3600},"push":"#
            let scheduled = try await gw.request(
                .post, "/api/schedules", json: later + push(3600) + "}", auth: app.server)
            #expect(scheduled.status == .created, "\(scheduled.text)")
            let tooLate = try await gw.request(
                .post, "/api/schedules", json: later + push(3700) + "}", auth: app.server)
            #expect(tooLate.status == .badRequest)
            #expect(
                (tooLate.json["details"] as? [String: String])?["path"]
                    == "push.notification.ios.live_activity.timestamp", "\(tooLate.text)")
            #expect(try await gw.database.scalar("SELECT count(*) FROM schedules", as: Int64.self) == 1)
        }
    }

    @Test func cancelBeforeFanOutSaysHowManyAndOtherAppsSeeNothing() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp(name: "A", bundleID: "com.example.a")
            let other = try await gw.createApp(name: "B", bundleID: "com.example.b")
            try await gw.seedActivities(appKey: app.key, count: 5, name: "m")
            let sent = try await gw.request(.post, "/api/push", json: Self.valid, auth: app.server)
            let id = try #require((sent.json["push_ids"] as? [String])?.first)
            #expect(try await gw.request(.get, "/api/pushes/\(id)", auth: other.server).status == .notFound)
            #expect(try await gw.request(.delete, "/api/pushes/\(id)", auth: other.server).status == .notFound)
            let canceled = try await gw.request(.delete, "/api/pushes/\(id)", auth: app.server)
            #expect(canceled.json["canceled"] as? Int == 5)
            let report = try await gw.request(.get, "/api/pushes/\(id)", auth: app.server)
            let push = try #require(report.json["push"] as? [String: Any])
            #expect(push["state"] as? String == "canceled")
            #expect((push["counts"] as? [String: Int])?["canceled"] == 5)
            #expect(try await gw.request(.delete, "/api/pushes/\(id)", auth: app.server).json["canceled"] as? Int == 0)
        }
    }
}
