import Foundation
import Testing

/// Clients generated from the served OpenAPI document work: Apple's swift-openapi-generator makes a client (types and
/// client) that compiles, and a push sent through it is accepted. The document keeps to what generators support: no
/// `if`/`then`, `not` or `allOf`, no `const` in a union, no union of `required` lists alone.
@Suite struct OpenAPIGeneratedClientTests {
    @Test func theSwiftClientGeneratedFromTheServedDocumentCompilesAndSendsAPush() async throws {
        try await GatewayHarness.run { gw in
            let app = try await gw.createApp()
            let served = try await gw.request(.get, "/openapi.json")
            try #require(served.status == .ok)
            _ = try OpenAPIClientPackage.prepare(document: Data(buffer: served.body))
            let started = ContinuousClock.now
            let build = try await OpenAPIClientPackage.build(deadline: .seconds(600))
            try #require(
                build.status == 0, "swift build of the generated client exited \(build.status):\n\(build.output)")
            print("openapi client: built in \(ContinuousClock.now - started)")

            let port = try #require(gw.client.port)
            let result = try await ChildProcess.run(
                OpenAPIClientPackage.program, ["http://127.0.0.1:\(port)", app.key, app.masterSecret],
                deadline: .seconds(60))
            try #require(
                result.status == 0, "the generated client's program exited \(result.status):\n\(result.output)")
            let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("push_id ") })
            let pushID = line.dropFirst("push_id ".count)
            let report = try await gw.request(.get, "/api/pushes/\(pushID)", auth: app.server)
            #expect(report.status == .ok, "\(report.text)")
            let push = report.json["push"] as? [String: Any] ?? [:]
            #expect(push["push_id"] as? String == String(pushID))
            #expect(push["name"] as? String == "match")
            #expect(push["event"] as? String == "update")
        }
    }

    /// What generators skip or get wrong is said in descriptions instead (the server still checks it).
    @Test func theDocumentUsesOnlyWhatGeneratorsSupport() throws {
        var found: [String] = []
        func walk(_ value: Any, _ path: String) {
            if let object = value as? [String: Any] {
                for key in ["if", "then", "else", "not", "allOf"] where object[key] != nil {
                    // `not` is a property name in AudienceNot; only a schema's keyword counts.
                    if key == "not", path.hasSuffix("/properties") { continue }
                    found.append("\(path)/\(key)")
                }
                for key in ["oneOf", "anyOf"] {
                    for (index, branch) in (object[key] as? [[String: Any]] ?? []).enumerated() {
                        if branch["const"] != nil { found.append("\(path)/\(key)[\(index)]: const") }
                        if branch["required"] != nil, branch["properties"] == nil, branch["$ref"] == nil {
                            found.append("\(path)/\(key)[\(index)]: required alone")
                        }
                        if branch["type"] as? String == "null" { found.append("\(path)/\(key)[\(index)]: null") }
                    }
                }
                for (key, inner) in object { walk(inner, "\(path)/\(key)") }
            } else if let list = value as? [Any] {
                for (index, inner) in list.enumerated() { walk(inner, "\(path)[\(index)]") }
            }
        }
        let document = try GatewayOpenAPITests.document()
        walk(document, "#")
        // Generators that name files in snake case (openapi-python-client) would make AudienceAnd and AudienceAND one.
        let names = ((document["components"] as? [String: Any])?["schemas"] as? [String: Any] ?? [:]).keys
        let folded = Dictionary(grouping: names) { $0.lowercased().filter { $0.isLetter || $0.isNumber } }
        for (_, same) in folded where same.count > 1 { found.append("schemas named alike: \(same.sorted())") }
        #expect(found.isEmpty, "constructs generators do not support: \(found.sorted())")
    }
}
