/// One node of a contract: the JSON Schema subset that Swift's `Codable` types need (docs/contracts.md). Parsed once
/// when a contract is stored or loaded; `check` and `convertingDates` walk it beside a value.
///
/// Apple: "ActivityKit decodes the content state with a default `JSONDecoder`": what a node accepts is what a default
/// `JSONDecoder` accepts for the Swift type it stands for (`ContractTests` holds the two side by side).
public indirect enum ContractSchema: Sendable, Equatable {
    /// A struct: its properties, which must be present and not null, and what other keys may hold (a dictionary has
    /// no properties and `additional`; a struct ignores other keys, as `JSONDecoder` does).
    case object(properties: [String: ContractSchema], required: Set<String>, additional: ContractSchema?)
    case array(items: ContractSchema)
    case string(format: StringFormat?, cases: [String]?)
    case integer(minimum: Double?, maximum: Double?, cases: [Int64]?)
    case number(minimum: Double?, maximum: Double?, isDate: Bool)
    case boolean
    /// `["<type>", "null"]`: an optional element (`[Int?]`); an optional property is simply not required.
    case nullable(ContractSchema)

    public enum StringFormat: String, Sendable {
        /// Foundation's `UUID`: `UUID(uuidString:)` must accept it.
        case uuid
        /// Foundation's `URL`: `JSONDecoder` refuses an empty string.
        case uri
        /// Foundation's `Data`: base64 (`JSONDecoder.DataDecodingStrategy.base64`, the default).
        case byte
    }

    /// The keywords a node may use; any other is refused, as the check could not keep a promise it does not know.
    static let keywords: Set<String> = [
        "type", "properties", "required", "additionalProperties", "items", "enum", "minimum", "maximum", "format",
        "x-swift-type", "title", "description", "$schema", "$comment",
    ]

    /// The tag of the kind of value, as JSON Schema names it (`expected an integer`).
    var expected: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string(.uuid, _): "a UUID string"
        case .string(.uri, _): "a URL string"
        case .string(.byte, _): "a base64 string"
        case .string: "a string"
        case .integer: "an integer"
        case .number(_, _, true): "a date (a number: seconds since 1 January 2001)"
        case .number: "a number"
        case .boolean: "a boolean"
        case .nullable(let inner): "\(inner.expected) or null"
        }
    }
}
