import Foundation
import HTTPTypes
import PostgresNIO
import PostgresStore
import Testing

/// Property run over the OpenAPI document: each operation's request example, mutated field by field
/// (`GatewayFuzzTests.mutations`), against the real gateway and PostgreSQL answers 2xx or 4xx, never 5xx; every
/// 4xx is in the error shape and writes nothing (every table's rows hash the same before and after; no worker runs).
@Suite struct GatewayPropertyTests {
    @Test func everyOperationAnswers2xxOr4xxAndA4xxWritesNothing() async throws {
        try await EndToEndHarness.run(workers: 0) { e2e in
            let gw = e2e.gateway
            let document = try GatewayOpenAPITests.document()
            let channel = try await gw.registerChannel(e2e.app, installID: "props")
            try await gw.track(e2e.app, channel: channel, name: "match", token: hexToken(1), systemID: "A")
            let victim = try await gw.createApp(name: "Victim", bundleID: "com.example.victim")
            let values = [
                "channel_id": channel, "name": "match", "attributes_type": "MatchAttributes", "key": victim.key,
                "push_id": UUID().uuidString.lowercased(), "schedule_id": UUID().uuidString.lowercased(),
            ]
            // Every row of every table, hashed: a 4xx must leave it as it was.
            let tables = try await gw.database.client.query(
                "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
                logger: gw.database.logger
            ).collect().map { try $0.decode(String.self) }
            let fingerprint =
                "SELECT concat_ws(',', "
                + tables.map { "(SELECT count(*) || ':' || coalesce(sum(hashtext(t::text)), 0) FROM \($0) t)" }
                .joined(separator: ", ") + ")"
            func xmax() async throws -> String {
                try await gw.database.scalar(PostgresQuery(unsafeSQL: fingerprint), as: String.self)
            }
            var (requests, failures) = (0, [String]())
            let paths = (document["paths"] as? [String: [String: Any]] ?? [:]).sorted { $0.key < $1.key }
            for (path, item) in paths {
                for method in GatewayOpenAPITests.methods {
                    guard let operation = item[method] as? [String: Any],
                        let content = ((operation["requestBody"] as? [String: Any])?["content"] as? [String: Any])?[
                            "application/json"] as? [String: Any],
                        let example = content["example"],
                        !(path.hasPrefix("/admin/apps/{key}") && method != "put")  // not rotate or delete the app
                    else { continue }
                    var uri = path
                    for (name, value) in values { uri = uri.replacingOccurrences(of: "{\(name)}", with: value) }
                    let valid = String(decoding: try JSONSerialization.data(withJSONObject: example), as: UTF8.self)
                    let auth =
                        path.hasPrefix("/admin")
                        ? gw.admin
                        : path.hasPrefix("/api/channels/{channel_id}") || path == "/api/channels"
                            ? e2e.app.device
                            : e2e.app.server
                    for body in GatewayFuzzTests.mutations(of: valid) {
                        let before = try await xmax()
                        let answer = try await gw.request(
                            HTTPRequest.Method(rawValue: method.uppercased())!, uri, json: body, auth: auth)
                        requests += 1
                        let code = answer.status.code
                        let shaped =
                            answer.json["ok"] as? Bool == false && answer.json["error"] is String
                            && answer.json["error_code"] is Int && answer.json["request_id"] is String
                            && answer.json["details"] is [String: Any]
                        if code >= 500 || (code >= 400 && !shaped) {
                            failures.append("\(method) \(path) \(body.prefix(160)): \(code) \(answer.text.prefix(200))")
                        } else if code >= 400, try await xmax() != before {
                            failures.append("\(method) \(path) \(body.prefix(160)): \(code) wrote")
                        }
                    }
                }
            }
            print("properties: \(requests) requests over the document's operations, \(failures.count) failures")
            #expect(requests > 500)
            #expect(failures.isEmpty, "\(failures.prefix(10).joined(separator: "\n"))")
        }
    }
}
