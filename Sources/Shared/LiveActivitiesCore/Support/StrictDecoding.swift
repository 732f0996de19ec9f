/// Strict JSON decoding: unknown fields are errors, and every decoding error becomes a `ValidationError`
/// that names the field by its JSON path (`apns.team_id`, `audience.or[1].tag`).
public struct AnyCodingKey: CodingKey, Sendable {
    public var stringValue: String
    public var intValue: Int?

    public init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    public init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }
}

extension Decoder {
    /// Throws for the first key of the current object that `Keys` does not list.
    public func rejectUnknownKeys<Keys: CodingKey>(_ keys: Keys.Type) throws {
        let container = try self.container(keyedBy: AnyCodingKey.self)
        // `Keys(stringValue:)` is the key type's own switch: no set of names is built per object decoded.
        for key in container.allKeys where Keys(stringValue: key.stringValue) == nil {
            throw DecodingError.dataCorrupted(
                .init(codingPath: self.codingPath + [key], debugDescription: ValidationError.unknownFieldRule)
            )
        }
    }
}

extension Decoder {
    /// The JSON path of `field` inside the value being decoded (`audience.or[1].tag`).
    public func path(_ field: String) -> String {
        let base = ValidationError.path(self.codingPath)
        return base.isEmpty ? field : "\(base).\(field)"
    }
}

extension ValidationError {
    public static let unknownFieldRule = "is not a known field"

    /// `a.b[2].c` from a coding path.
    public static func path(_ codingPath: [any CodingKey]) -> String {
        var path = ""
        for key in codingPath {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return path
    }

    public init(decoding error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(path: Self.path(context.codingPath + [key]), rule: "is required")
        case .valueNotFound(_, let context):
            self.init(path: Self.path(context.codingPath), rule: "must not be null")
        case .typeMismatch(let type, let context):
            self.init(path: Self.path(context.codingPath), rule: "must be \(Self.jsonTypeName(type))")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                self.init(path: "", rule: "the body must be a valid JSON object")
            } else {
                self.init(path: Self.path(context.codingPath), rule: context.debugDescription)
            }
        @unknown default:
            self.init(path: "", rule: "the body could not be decoded")
        }
    }

    static func jsonTypeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is Int16.Type, is UInt.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        case is [Any].Type: "an array"
        default:
            String(describing: type).hasPrefix("Array")
                ? "an array" : String(describing: type).hasPrefix("Dictionary") ? "an object" : "an object"
        }
    }
}
