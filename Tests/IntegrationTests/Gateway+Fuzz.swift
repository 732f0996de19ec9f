import Foundation
import HTTPTypes
import LiveActivitiesCore
import Testing

/// Every endpoint, its valid body mutated field by field (NUL and control characters, wrong types, extremes, unknown
/// and missing fields) and its path and query parameters mangled: no input gives a 5xx.
@Suite struct GatewayFuzzTests {
    struct Endpoint {
        var method: HTTPRequest.Method
        var path: String
        var body: String?
        var auth: String
    }

    static let bad: [JSONValue] = [
        .string("\u{0}"), .string("a\u{1}b"), .string("tab\there"), .string("\u{7F}\u{85}"), .string(""),
        .string(String(repeating: "x", count: 5000)), .integer(-1), .integer(Int64.max), .number(1e300),
        .number(-0.5), .bool(true), .null, .array([]), .object([:]), .array([.string("\u{0}")]),
        .object(["\u{0}": .string("k")]),
    ]
    static let badSegments = [
        "%00", "a%01b", "%ff%fe", "%C2%85", String(repeating: "z", count: 3000), "..", "%2F", "%20",
    ]

    /// The body with each leaf replaced by each bad value, each object field dropped, and an unknown field added.
    static func mutations(of body: String) -> [String] {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(body.utf8)) else { return [] }
        var out = [
            "", "null", "[]", "{", "{\"a\":" + String(repeating: "[", count: 5000), String(repeating: "9", count: 400),
        ]
        func walk(_ node: JSONValue, _ rebuild: @escaping (JSONValue) -> JSONValue) {
            switch node {
            case .object(let fields):
                for (key, child) in fields {
                    var dropped = fields
                    dropped[key] = nil
                    out.append(Self.text(rebuild(.object(dropped))))
                    walk(child) {
                        var copy = fields
                        copy[key] = $0
                        return rebuild(.object(copy))
                    }
                }
                var extra = fields
                extra["unexpected_\u{0}"] = .integer(1)
                out.append(Self.text(rebuild(.object(extra))))
            case .array(let items):
                for (index, child) in items.enumerated() {
                    walk(child) {
                        var copy = items
                        copy[index] = $0
                        return rebuild(.array(copy))
                    }
                }
            default:
                for bad in Self.bad { out.append(Self.text(rebuild(bad))) }
            }
        }
        walk(value) { $0 }
        return out
    }

    static func text(_ value: JSONValue) -> String {
        String(decoding: try! JSONEncoder().encode(value), as: UTF8.self)
    }

    @Test func noInputGivesA5xx() async throws {
        try await EndToEndHarness.run(workers: 0) { e2e in
            let gw = e2e.gateway
            let (app, device) = (e2e.app.server, e2e.app.device)
            let channel = try await gw.registerChannel(e2e.app, installID: "fuzz")
            try await gw.track(e2e.app, channel: channel, name: "match", token: hexToken(1), systemID: "A")
            let push = try await e2e.send(
                #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"match","content_state":{"a":1}}}}}"#
            )
            let victim = try await gw.createApp(name: "Victim", bundleID: "com.example.victim")
            let c = "/api/channels/\(channel)"
            let la =
                #"{"event":"update","name":"match","content_state":{"home":1,"t":"x"},"alert":{"title":"T","body":"B"},"priority":10,"stale_date":4102444800}"#
            let endpoints: [Endpoint] = [
                .init(
                    method: .post, path: "/api/channels",
                    body:
                        #"{"channel":{"device_type":"ios","install_id":"f2","opt_in":true,"tags":["a"],"locale":"en_US","timezone":"Europe/Paris"}}"#,
                    auth: device),
                .init(method: .put, path: c, body: #"{"channel":{"opt_in":true,"tags":["b"]}}"#, auth: device),
                .init(method: .delete, path: "\(c)/named-user", body: nil, auth: device),
                .init(
                    method: .put, path: "\(c)/push-to-start/MatchAttributes", body: #"{"token":"\#(hexToken(5))"}"#,
                    auth: device),
                .init(method: .delete, path: "\(c)/push-to-start/MatchAttributes", body: nil, auth: device),
                .init(
                    method: .put, path: "\(c)/live-activities/match",
                    body:
                        #"{"attributes_type":"MatchAttributes","token":"\#(hexToken(2))","system_activity_id":"B","attributes":{"home":"A"}}"#,
                    auth: device),
                .init(
                    method: .post, path: "\(c)/live-activities/reconcile", body: #"{"system_activity_ids":["B"]}"#,
                    auth: device),
                .init(
                    method: .post, path: "\(c)/live-activities/match/updates",
                    body: #"{"offset":60,"content_state":{"home":2},"alert":{"title":"T","body":"B"}}"#, auth: device),
                .init(method: .delete, path: "\(c)/live-activities/match/updates", body: nil, auth: device),
                .init(method: .post, path: "\(c)/launches", body: #"{"system_activity_id":"B"}"#, auth: device),
                .init(method: .get, path: "/api/broadcast-channels/match", body: nil, auth: device),
                .init(method: .get, path: c, body: nil, auth: app),
                .init(
                    method: .post, path: "/api/channels/tags",
                    body:
                        #"{"audience":{"ios_channel":"\#(channel)"},"add":{"tier":["gold"]},"remove":{"tier":["x"]}}"#,
                    auth: app),
                .init(
                    method: .post, path: "/api/push/validate",
                    body:
                        #"{"audience":{"and":[{"tag":"a"},{"named_user":"u"}]},"device_types":["ios"],"notification":{"ios":{"live_activity":\#(la)}}}"#,
                    auth: app),
                .init(
                    method: .post, path: "/api/push",
                    body:
                        #"{"audience":{"ios_channel":"\#(channel)"},"device_types":["ios"],"notification":{"ios":{"live_activity":\#(la)}}}"#,
                    auth: app),
                .init(method: .get, path: "/api/pushes/\(push)", body: nil, auth: app),
                .init(
                    method: .post, path: "/api/schedules",
                    body:
                        #"{"name":"s","schedule":{"scheduled_time":"\#(ScheduleFiringTests.iso(Date().addingTimeInterval(30 * 86_400)))"},"push":{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":\#(la)}}}}"#,
                    auth: app),
                .init(method: .get, path: "/api/schedules?limit=10", body: nil, auth: app),
                .init(method: .put, path: "/api/broadcast-channels/live", body: #"{"storage":"none"}"#, auth: app),
                .init(method: .get, path: "/api/broadcast-channels?after=a&limit=5", body: nil, auth: app),
                .init(method: .delete, path: "/api/broadcast-channels/live", body: nil, auth: app),
                .init(method: .delete, path: "/api/pushes/\(push)", body: nil, auth: app),
                .init(method: .get, path: "/admin/apps", body: nil, auth: gw.admin),
                .init(
                    method: .post, path: "/admin/apps",
                    body: Fixtures.createAppJSON(name: "F", bundleID: "com.example.f"), auth: gw.admin),
                .init(method: .get, path: "/admin/apps/\(victim.key)", body: nil, auth: gw.admin),
                .init(
                    method: .put, path: "/admin/apps/\(victim.key)/policies",
                    body:
                        #"{"activity_max_age_seconds":3600,"idle_end":[{"attributes_type":"A","idle_seconds":600}],"device_tag_groups":["device"],"start_confirm_seconds":60}"#,
                    auth: gw.admin),
                .init(
                    method: .put, path: "/admin/apps/\(victim.key)/apns",
                    body:
                        #"{"team_id":"TEAM123456","key_id":"KEY1234567","environment":"development","private_key":"x"}"#,
                    auth: gw.admin),
                .init(
                    method: .post, path: "/admin/apps/\(victim.key)/rotate-secrets", body: #"{"which":"app"}"#,
                    auth: gw.admin),
                .init(method: .delete, path: "/admin/apps/\(victim.key)", body: nil, auth: gw.admin),
            ]
            var (requests, failures) = (0, [String]())
            func call(_ method: HTTPRequest.Method, _ path: String, _ body: String?, _ auth: String) async throws {
                let answer = try await gw.request(method, path, json: body, auth: auth)
                requests += 1
                if answer.status.code >= 500 {
                    failures.append(
                        "\(method) \(path) \(body?.prefix(200) ?? ""): \(answer.status.code) \(answer.text)")
                }
            }
            for endpoint in endpoints {
                for body in endpoint.body.map(Self.mutations(of:)) ?? [] {
                    try await call(endpoint.method, endpoint.path, body, endpoint.auth)
                }
                // Each segment of the path (and the query), mangled; then the valid call.
                let parts = endpoint.path.split(separator: "/", omittingEmptySubsequences: false)
                for index in parts.indices.dropFirst(2) {
                    for segment in Self.badSegments {
                        var mangled = parts
                        mangled[index] = Substring(segment)
                        try await call(endpoint.method, mangled.joined(separator: "/"), endpoint.body, endpoint.auth)
                    }
                }
                try await call(endpoint.method, endpoint.path + "?x=%00", endpoint.body, endpoint.auth)
                try await call(endpoint.method, endpoint.path, endpoint.body, endpoint.auth)
            }
            print("fuzz: \(requests) requests over \(endpoints.count) endpoints, \(failures.count) with a 5xx")
            #expect(requests > 2000)
            #expect(failures.isEmpty, "\(failures.prefix(10).joined(separator: "\n"))")
        }
    }
}
