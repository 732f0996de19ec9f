import Foundation

/// A contract: the JSON Schema of an attributes type's content state and of its attributes, as a default
/// `JSONDecoder` on the device decodes them (see `docs/contracts.md`).
///
/// Made from the app's own types in the app's tests, so that app and gateway cannot drift:
/// `try ActivityContract.make(contentState: MatchAttributes.ContentState.self, attributes: MatchAttributes.self)
///     .jsonData().write(to: url)`, then uploaded by CI (`live-activities-contract upload`).
public struct ActivityContract: Sendable, Equatable, Encodable {
    public var contentState: ContractSchema
    public var attributes: ContractSchema

    public init(contentState: ContractSchema, attributes: ContractSchema) {
        self.contentState = contentState
        self.attributes = attributes
    }

    /// Walks the types' `init(from:)` (no example value needed); throws `ContractError`, naming the coding path, for
    /// what the contract language cannot describe.
    public static func make<State: Decodable, Attributes: Decodable>(
        contentState: State.Type, attributes: Attributes.Type
    ) throws -> ActivityContract {
        ActivityContract(
            contentState: try Self.schema(of: State.self, root: "content_state"),
            attributes: try Self.schema(of: Attributes.self, root: "attributes"))
    }

    /// The schema of one type, which must decode from a JSON object (as a content state and attributes do).
    /// `root` starts the coding paths in errors.
    public static func schema<T: Decodable>(of type: T.Type, root: String = "") throws -> ContractSchema {
        let schema = try SchemaRecorder(root: root).walk(T.self, at: []).schema
        guard case .object = schema else {
            throw ContractError(
                root: root, path: [],
                reason: "\(T.self) does not decode from a JSON object; a content state and attributes must be structs")
        }
        return schema
    }

    /// `{"attributes":…,"content_state":…}`, keys sorted: the body of
    /// `PUT /api/attributes-types/{attributes_type}/contracts/{version}`.
    public func jsonData() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only strings, integers and finite numbers are encoded: it cannot fail.
        return try! encoder.encode(self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ContractKey.self)
        try container.encode(self.contentState, forKey: "content_state")
        try container.encode(self.attributes, forKey: "attributes")
    }
}
