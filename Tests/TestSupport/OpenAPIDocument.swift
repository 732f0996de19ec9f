import Foundation

/// `Sources/Gateway/Resources/openapi.json`, the API's contract, as the tests read it.
public enum OpenAPIDocument {
    public static var path: String { TestEnvironment.repoRoot + "/Sources/Gateway/Resources/openapi.json" }

    public static let methods = ["get", "put", "post", "delete", "patch"]

    public static func load() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.path))
        guard let document = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw TestSetupError("\(Self.path) is not a JSON object")
        }
        return document
    }

    /// "METHOD /path" of every operation of the document.
    public static func operations(_ document: [String: Any]) -> Set<String> {
        var found: Set<String> = []
        for (path, item) in document["paths"] as? [String: [String: Any]] ?? [:] {
            for method in Self.methods where item[method] != nil { found.insert("\(method.uppercased()) \(path)") }
        }
        return found
    }
}
