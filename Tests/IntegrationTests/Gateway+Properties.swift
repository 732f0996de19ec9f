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
            let document = try OpenAPIDocument.load()
            let channel = try await gw.registerChannel(e2e.app, installID: "props")
            try await gw.track(e2e.app, channel: channel, name: "match", token: hexToken(1), systemID: "A")
            let victim = try await gw.createApp(name: "Victim", bundleID: "com.example.victim")
            let values = [
                "channel_id": channel, "name": "match", "attributes_type": "MatchAttributes", "key": victim.key,
                "push_id": UUID().uuidString.lowercased(), "schedule_id": UUID().uuidString.lowercased(),
                "version": "1",
            ]
            // Every row of every table, hashed: a 4xx must leave it as it was. Prepared once on a connection of its
            // own (planned for 55 tables, it costs 15 ms a call; prepared, under 1 ms).
            let tables = try await gw.database.client.query(
                "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
                logger: gw.database.logger
            ).collect().map { try $0.decode(String.self) }
            let fingerprint =
                "PREPARE fingerprint AS SELECT concat_ws(',', "
                + tables.map { "(SELECT count(*) || ':' || coalesce(sum(hashtext(t::text)), 0) FROM \($0) t)" }
                .joined(separator: ", ") + ")"
            try await AdminConnection.with(gw.databaseURL) { connection in
                _ = try await connection.simpleQuery(fingerprint).get()
                func fingerprintNow() async throws -> String {
                    let rows = try await connection.query("EXECUTE fingerprint", logger: gw.database.logger).collect()
                    return try rows[0].decode(String.self)
                }
                var (requests, failures) = (0, [String]())
                let examples = try GatewayOpenAPITests.exampleRequests(
                    document, values: values, app: e2e.app, admin: gw.admin)
                // What the tables hold: the last fingerprint taken, forgotten when an answer may have written.
                var known: String?
                // Not the operator calls that rotate or delete the app.
                for request in examples
                where !(request.path.hasPrefix("/admin/apps/{key}") && request.method != "put") {
                    for body in GatewayFuzzTests.mutations(of: request.body) {
                        let before: String
                        if let known { before = known } else { before = try await fingerprintNow() }
                        known = before
                        let answer = try await gw.request(
                            HTTPRequest.Method(rawValue: request.method.uppercased())!, request.uri, json: body,
                            auth: request.auth)
                        requests += 1
                        let code = answer.status.code
                        let shaped =
                            answer.json["ok"] as? Bool == false && answer.json["error"] is String
                            && answer.json["error_code"] is Int && answer.json["request_id"] is String
                            && answer.json["details"] is [String: Any]
                        if code < 400 || code >= 500 { known = nil }
                        if code >= 500 || (code >= 400 && !shaped) {
                            failures.append(
                                "\(request.method) \(request.path) \(body.prefix(160)): \(code) \(answer.text.prefix(200))"
                            )
                        } else if code >= 400, try await fingerprintNow() != before {
                            failures.append("\(request.method) \(request.path) \(body.prefix(160)): \(code) wrote")
                            known = nil
                        }
                    }
                }
                print("properties: \(requests) requests over the document's operations, \(failures.count) failures")
                #expect(requests > 500)
                #expect(failures.isEmpty, "\(failures.prefix(10).joined(separator: "\n"))")
            }
        }
    }
}
