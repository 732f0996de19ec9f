import Foundation
import PostgresStore
import TestSupport
import Testing

@testable import Gateway

/// `Sources/Gateway/Resources/openapi.json` is the API's contract: every route is in it and nothing else, and it keeps
/// to what client generators support (no `if`/`then`, `not` or `allOf`, no `const` in a union, no union of `required`
/// lists alone). (Served, its examples valid input, a generated client working: `GatewayOpenAPITests`,
/// `OpenAPIGeneratedClientTests`.)
@Suite struct OpenAPIDocumentTests {
    @Test func theDocumentHasEveryRouteAndNoOther() throws {
        let document = try OpenAPIDocument.load()
        #expect((document["openapi"] as? String)?.hasPrefix("3.1") == true)
        let url = try DatabaseURL("postgres://nobody@127.0.0.1:1/none")
        let configuration = GatewayConfiguration(
            databaseURL: url, adminToken: "unused-admin-token-0123", masterKey: .random())
        let dependencies = GatewayDependencies(
            database: Database(url: url, maxConnections: 1, logger: TestEnvironment.quietLogger),
            masterKey: configuration.masterKey)
        let router = buildRouter(configuration: configuration, dependencies: dependencies)
        let routes = Set(router.routes.map { "\($0.method.rawValue) \($0.path.description)" })
        let documented = OpenAPIDocument.operations(document)
        #expect(routes.count >= 30)
        #expect(routes.subtracting(documented).isEmpty, "routes the document lacks: \(routes.subtracting(documented))")
        #expect(documented.subtracting(routes).isEmpty, "documented, not routed: \(documented.subtracting(routes))")
        let size = try Data(contentsOf: URL(fileURLWithPath: OpenAPIDocument.path)).count
        print("openapi: \(documented.count) operations, \(size) bytes")
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
        let document = try OpenAPIDocument.load()
        walk(document, "#")
        // Generators that name files in snake case (openapi-python-client) would make AudienceAnd and AudienceAND one.
        let names = ((document["components"] as? [String: Any])?["schemas"] as? [String: Any] ?? [:]).keys
        let folded = Dictionary(grouping: names) { $0.lowercased().filter { $0.isLetter || $0.isNumber } }
        for (_, same) in folded where same.count > 1 { found.append("schemas named alike: \(same.sorted())") }
        #expect(found.isEmpty, "constructs generators do not support: \(found.sorted())")
    }
}
