extension ContractSchema {
    /// Parses a JSON Schema document of the subset, or names the first keyword or value it cannot accept by its path
    /// inside the document (`content_state.properties.score.type`).
    public init(parsing json: JSONValue, path: String) throws(ValidationError) {
        guard case .object(let node) = json else { throw ValidationError(path: path, rule: "must be a schema object") }
        for key in node.keys.sorted() where !Self.keywords.contains(key) {
            throw ValidationError(
                path: "\(path).\(key)",
                rule: "is not supported: contracts use type, properties, required, additionalProperties, items, enum, "
                    + "minimum, maximum, format and x-swift-type")
        }
        guard let type = node["type"] else { throw ValidationError(path: "\(path).type", rule: "is required") }
        switch type {
        case .string(let name):
            self = try Self.node(type: name, node, path: path)
        case .array(let names):
            let strings = names.compactMap { if case .string(let s) = $0 { s } else { nil } }
            guard strings.count == 2, names.count == 2, strings.contains("null"),
                let other = strings.first(where: { $0 != "null" })
            else {
                throw ValidationError(path: "\(path).type", rule: "as a list must be one type and \"null\"")
            }
            self = .nullable(try Self.node(type: other, node, path: path))
        default:
            throw ValidationError(path: "\(path).type", rule: "must be a type name or [type, \"null\"]")
        }
    }

    private static func node(type: String, _ node: [String: JSONValue], path: String) throws(ValidationError) -> Self {
        func only(_ allowed: Set<String>) throws(ValidationError) {
            let general: Set<String> = ["type", "title", "description", "$schema", "$comment"]
            for key in node.keys.sorted() where !general.contains(key) && !allowed.contains(key) {
                throw ValidationError(path: "\(path).\(key)", rule: "does not apply to type \(type)")
            }
        }
        switch type {
        case "object":
            try only(["properties", "required", "additionalProperties"])
            var properties: [String: ContractSchema] = [:]
            if let raw = node["properties"] {
                guard case .object(let map) = raw else {
                    throw ValidationError(path: "\(path).properties", rule: "must be an object of schemas")
                }
                for (name, schema) in map {
                    properties[name] = try ContractSchema(parsing: schema, path: "\(path).properties.\(name)")
                }
            }
            var required: Set<String> = []
            if let raw = node["required"] {
                guard case .array(let names) = raw else {
                    throw ValidationError(path: "\(path).required", rule: "must be a list of property names")
                }
                for (index, name) in names.enumerated() {
                    guard case .string(let name) = name, properties[name] != nil else {
                        throw ValidationError(
                            path: "\(path).required[\(index)]", rule: "must name a property listed in properties")
                    }
                    required.insert(name)
                }
            }
            let additional = try node["additionalProperties"].map { (raw) throws(ValidationError) in
                try ContractSchema(parsing: raw, path: "\(path).additionalProperties")
            }
            return .object(properties: properties, required: required, additional: additional)
        case "array":
            try only(["items"])
            guard let items = node["items"] else { throw ValidationError(path: "\(path).items", rule: "is required") }
            return .array(items: try ContractSchema(parsing: items, path: "\(path).items"))
        case "string":
            try only(["enum", "format"])
            var format: StringFormat?
            if let raw = node["format"] {
                guard case .string(let name) = raw, let known = StringFormat(rawValue: name) else {
                    throw ValidationError(path: "\(path).format", rule: "must be uuid, uri or byte")
                }
                format = known
            }
            let cases = try Self.cases(node, path, "a string") { if case .string(let s) = $0 { s } else { nil } }
            return .string(format: format, cases: cases)
        case "integer":
            try only(["enum", "minimum", "maximum"])
            let cases = try Self.cases(node, path, "an integer") { if case .integer(let i) = $0 { i } else { nil } }
            return .integer(
                minimum: try Self.bound(node, "minimum", path), maximum: try Self.bound(node, "maximum", path),
                cases: cases)
        case "number":
            try only(["minimum", "maximum", "x-swift-type"])
            var isDate = false
            if let raw = node["x-swift-type"] {
                guard raw == .string("Date") else {
                    throw ValidationError(path: "\(path).x-swift-type", rule: "must be \"Date\"")
                }
                isDate = true
            }
            return .number(
                minimum: try Self.bound(node, "minimum", path), maximum: try Self.bound(node, "maximum", path),
                isDate: isDate)
        case "boolean":
            try only([])
            return .boolean
        default:
            throw ValidationError(
                path: "\(path).type", rule: "must be object, array, string, integer, number or boolean")
        }
    }

    /// The `enum` list, each value of the kind `element` reads (nil: not that kind, named `kind` in the refusal).
    private static func cases<Value>(
        _ node: [String: JSONValue], _ path: String, _ kind: String, _ element: (JSONValue) -> Value?
    ) throws(ValidationError) -> [Value]? {
        guard let raw = node["enum"] else { return nil }
        guard case .array(let values) = raw, !values.isEmpty else {
            throw ValidationError(path: "\(path).enum", rule: "must be a non-empty list")
        }
        return try values.enumerated().map { (index, value) throws(ValidationError) in
            guard let element = element(value) else {
                throw ValidationError(path: "\(path).enum[\(index)]", rule: "must be \(kind)")
            }
            return element
        }
    }

    private static func bound(_ node: [String: JSONValue], _ key: String, _ path: String) throws(ValidationError)
        -> Double?
    {
        switch node[key] {
        case nil: nil
        case .integer(let value): Double(value)
        case .number(let value): value
        default: throw ValidationError(path: "\(path).\(key)", rule: "must be a number")
        }
    }
}
