/// One version of an attributes type's contract: the shapes of its `ContentState` and of its attributes, as the app's
/// build that carries this version decodes them (`PUT /api/attributes-types/{type}/contracts/{version}`).
public struct AttributesContract: Sendable, Equatable {
    public var attributesType: String
    public var version: Int
    public var contentState: ContractSchema
    public var attributes: ContractSchema
    /// The document as given, answered by `GET`.
    public var document: JSONValue

    /// Versions are what an app's build reports; 0 stands for "reported none" in the registry.
    public static let versions = 1...1_000_000
    /// A contract document of at most this many bytes of JSON (the largest payload is 5 KB: its schema is smaller).
    public static let maxBytes = 64 * 1024

    public init(attributesType: String, version: Int, document: JSONValue) throws(ValidationError) {
        guard case .object(let fields) = document else {
            throw ValidationError(path: "", rule: "must be {\"content_state\": <schema>, \"attributes\": <schema>}")
        }
        for key in fields.keys.sorted() where key != "content_state" && key != "attributes" {
            throw ValidationError(path: key, rule: ValidationError.unknownFieldRule)
        }
        func root(_ key: String) throws(ValidationError) -> ContractSchema {
            guard let raw = fields[key] else { throw ValidationError(path: key, rule: "is required") }
            let schema = try ContractSchema(parsing: raw, path: key)
            guard case .object = schema else {
                throw ValidationError(path: "\(key).type", rule: "must be object: ActivityKit decodes a struct")
            }
            return schema
        }
        self.attributesType = attributesType
        self.version = version
        self.contentState = try root("content_state")
        self.attributes = try root("attributes")
        self.document = document
    }

    /// `(MatchAttributes v3)`, the tail of every refusal's rule.
    public var label: String { "(\(self.attributesType) v\(self.version))" }
}
