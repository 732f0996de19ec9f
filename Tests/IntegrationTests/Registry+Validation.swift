import APNsTransport
import Foundation
import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct RegistryValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var label: String
        var method: String
        var path: String
        var body: String
        var status: Int
        var field: String
        var testDescription: String { self.label }
    }

    static let token = hexToken(1)
    static let cases: [Case] = [
        Case(
            label: "odd hex", method: "PUT", path: "/live-activities/match",
            body: #"{"attributes_type":"A","token":"abc","system_activity_id":"S"}"#, status: 400, field: "token"),
        Case(
            label: "not hex", method: "PUT", path: "/push-to-start/A",
            body: #"{"token":"\#(String(repeating: "zz", count: 16))"}"#, status: 400, field: "token"),
        Case(
            label: "10 KB name", method: "PUT", path: "/live-activities/\(String(repeating: "n", count: 10_240))",
            body: #"{"attributes_type":"A","token":"\#(token)","system_activity_id":"S"}"#, status: 400, field: "name"),
        Case(
            label: "bad attributes type", method: "PUT", path: "/push-to-start/9Lives",
            body: #"{"token":"\#(token)"}"#, status: 400, field: "attributes_type"),
        Case(
            label: "wrong type", method: "PUT", path: "/live-activities/match",
            body: #"{"attributes_type":"A","token":42,"system_activity_id":"S"}"#, status: 400, field: "token"),
        Case(
            label: "null token", method: "PUT", path: "/push-to-start/A", body: #"{"token":null}"#, status: 400,
            field: "token"),
        Case(
            label: "unknown field", method: "PUT", path: "/live-activities/match",
            body: #"{"attributes_type":"A","token":"\#(token)","system_activity_id":"S","extra":1}"#, status: 400,
            field: "extra"),
        Case(
            label: "missing field", method: "PUT", path: "/live-activities/match",
            body: #"{"token":"\#(token)","system_activity_id":"S"}"#, status: 400, field: "attributes_type"),
        Case(
            label: "bad reconcile entry", method: "POST", path: "/live-activities/reconcile",
            body: #"{"system_activity_ids":["ok", ""]}"#, status: 400, field: "system_activity_ids[1]"),
        Case(
            label: "over-size body", method: "PUT", path: "/push-to-start/A",
            body: #"{"token":"\#(String(repeating: "ab", count: 40_000))"}"#, status: 413, field: ""),
    ]

    @Test(arguments: cases) func badInputGetsAPrecise4xxAndChangesNothing(_ c: Case) async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let channel = try await gw.registerChannel(app, installID: "device-1")
            try await gw.track(app, channel: channel, name: "match", token: hexToken(7), systemID: "S0")
            let before = try await gw.registryRowCounts()
            let snapshot = try await gw.database.scalar(
                "SELECT string_agg(push_token || state, ',') FROM live_activities", as: String.self)

            let response = try await gw.request(
                .init(c.method)!, "/api/channels/\(channel)\(c.path)", json: c.body, auth: app.device)
            #expect(response.status.code == c.status, "\(response.text)")
            #expect(response.json["ok"] as? Bool == false)
            if !c.field.isEmpty {
                #expect((response.json["details"] as? [String: String])?["path"] == c.field, "\(response.text)")
            }
            #expect(try await gw.registryRowCounts() == before)
            #expect(
                try await gw.database.scalar(
                    "SELECT string_agg(push_token || state, ',') FROM live_activities", as: String.self) == snapshot)
        }
    }
}
