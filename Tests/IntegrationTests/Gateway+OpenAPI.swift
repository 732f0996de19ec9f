import Foundation
import HTTPTypes
import Hummingbird
import Logging
import PostgresStore
import Testing

@testable import Gateway

/// `Sources/Gateway/Resources/openapi.json` is served at `/openapi.json`, and each documented request example is valid
/// input to the running gateway. (Every route in it and nothing else: `OpenAPIDocumentTests`.)
@Suite struct GatewayOpenAPITests {
    /// An operation's request example, ready to send: the path's ids replaced by `values`, the credential its group
    /// wants (operator, device for `/api/channels` and below, else server).
    struct ExampleRequest {
        var path: String
        var method: String
        var uri: String
        var body: String
        var auth: String
    }

    static func exampleRequests(
        _ document: [String: Any], values: [String: String], app: TestApp, admin: String
    ) throws -> [ExampleRequest] {
        var requests: [ExampleRequest] = []
        for (path, item) in (document["paths"] as? [String: [String: Any]] ?? [:]).sorted(by: { $0.key < $1.key }) {
            for method in OpenAPIDocument.methods {
                guard let operation = item[method] as? [String: Any],
                    let content = ((operation["requestBody"] as? [String: Any])?["content"] as? [String: Any])?[
                        "application/json"] as? [String: Any],
                    let example = content["example"]
                else { continue }
                var uri = path
                for (name, value) in values { uri = uri.replacingOccurrences(of: "{\(name)}", with: value) }
                let body = String(decoding: try JSONSerialization.data(withJSONObject: example), as: UTF8.self)
                let auth =
                    path.hasPrefix("/admin")
                    ? admin
                    : path.hasPrefix("/api/channels/{channel_id}") || path == "/api/channels"
                        ? app.device
                        : app.server
                requests.append(ExampleRequest(path: path, method: method, uri: uri, body: body, auth: auth))
            }
        }
        return requests
    }

    /// Served as kept; every request example is accepted as valid input (no 400, no 5xx) by the running gateway,
    /// with the path's ids those of real fixtures.
    @Test func theDocumentIsServedAndItsExamplesAreValid() async throws {
        try await EndToEndHarness.run(workers: 0) { e2e in
            let document = try OpenAPIDocument.load()
            let gw = e2e.gateway
            let served = try await gw.request(.get, "/openapi.json")
            #expect(served.status == .ok)
            #expect((served.json["openapi"] as? String) == (document["openapi"] as? String))

            let victim = try await gw.createApp(name: "Victim", bundleID: "com.example.victim")
            let channel = try await gw.registerChannel(e2e.app, installID: "openapi")
            try await gw.track(e2e.app, channel: channel, name: "match", token: hexToken(1), systemID: "A")
            let push = try await e2e.send(
                #"{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"match","content_state":{"n":1}}}}}"#
            )
            let values = [
                "channel_id": channel, "name": "match", "attributes_type": "MatchAttributes", "push_id": push,
                "key": victim.key, "schedule_id": UUID().uuidString.lowercased(), "version": "1",
            ]
            var checked = 0
            // Destructive operator calls last.
            let destructive = { (r: ExampleRequest) in r.path.hasPrefix("/admin/apps/{key}") && r.method != "get" }
            let requests = try Self.exampleRequests(document, values: values, app: e2e.app, admin: gw.admin)
                .sorted { !destructive($0) && destructive($1) }
            for request in requests {
                let answer = try await gw.request(
                    HTTPRequest.Method(rawValue: request.method.uppercased())!, request.uri, json: request.body,
                    auth: request.auth)
                #expect(
                    answer.status.code < 500 && answer.status != .badRequest,
                    "\(request.method.uppercased()) \(request.path) with its example: \(answer.status.code) \(answer.text)"
                )
                checked += 1
            }
            print("openapi: \(checked) request examples sent")
            #expect(checked >= 10)
        }
    }
}
