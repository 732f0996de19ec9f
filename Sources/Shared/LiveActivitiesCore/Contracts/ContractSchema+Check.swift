import Foundation

extension ContractSchema {
    /// The first place where `value` would not decode, as `JSONDecoder` would fail on it, or nil. Properties are
    /// visited in name order, so the answer is the same every time.
    public func violation(in value: JSONValue, path: String) -> ValidationError? {
        switch (self, value) {
        case (.nullable, .null):
            return nil
        case (.nullable(let inner), _):
            return inner.violation(in: value, path: path)
        case (.object(let properties, let required, let additional), .object(let fields)):
            for name in properties.keys.sorted() {
                let schema = properties[name]!
                switch fields[name] {
                case nil:
                    if required.contains(name) { return ValidationError(path: "\(path).\(name)", rule: "is required") }
                case .null?:
                    // `decodeIfPresent` takes null as absent; `decode` of a non-optional refuses it.
                    if required.contains(name) {
                        return ValidationError(path: "\(path).\(name)", rule: "must not be null")
                    }
                case let field?:
                    if let found = schema.violation(in: field, path: "\(path).\(name)") { return found }
                }
            }
            guard let additional else { return nil }
            for name in fields.keys.sorted() where properties[name] == nil {
                if let found = additional.violation(in: fields[name]!, path: "\(path).\(name)") { return found }
            }
            return nil
        case (.array(let items), .array(let elements)):
            for (index, element) in elements.enumerated() {
                if let found = items.violation(in: element, path: "\(path)[\(index)]") { return found }
            }
            return nil
        case (.string(let format, let cases), .string(let text)):
            if let cases, !cases.contains(text) {
                return ValidationError(path: path, rule: "must be one of \(cases.joined(separator: ", "))")
            }
            switch format {
            case .uuid?:
                if UUID(uuidString: text) == nil {
                    return ValidationError(path: path, rule: "expected \(self.expected)")
                }
            case .uri?:
                if URL(string: text) == nil { return ValidationError(path: path, rule: "expected \(self.expected)") }
            case .byte?:
                if Data(base64Encoded: text) == nil {
                    return ValidationError(path: path, rule: "expected \(self.expected)")
                }
            case nil: break
            }
            return nil
        case (.integer(let minimum, let maximum, let cases), .integer(let number)):
            // `JSONValue` holds `.integer` exactly when `JSONDecoder` decodes the text as an `Int64`.
            if let cases, !cases.contains(number) {
                return ValidationError(
                    path: path, rule: "must be one of \(cases.map(String.init).joined(separator: ", "))")
            }
            return Self.bounds(Double(number), minimum, maximum, path: path)
        case (.integer(let minimum, let maximum, let cases), .number(let number)):
            // A whole number the request wrote as `3.0` is sent as `3` (JSONEncoder), which decodes as an integer; one
            // that fits no 64-bit integer does not.
            guard number.rounded() == number, number >= -0x1p63,
                number < (maximum.map { $0 >= 0x1p63 } == true ? 0x1p64 : 0x1p63)
            else { return ValidationError(path: path, rule: "expected \(self.expected)") }
            if let cases, !cases.contains(Int64(exactly: number) ?? .min) {
                return ValidationError(
                    path: path, rule: "must be one of \(cases.map(String.init).joined(separator: ", "))")
            }
            return Self.bounds(number, minimum, maximum, path: path)
        case (.number(let minimum, let maximum, _), .integer(let number)):
            return Self.bounds(Double(number), minimum, maximum, path: path)
        case (.number(let minimum, let maximum, _), .number(let number)):
            return Self.bounds(number, minimum, maximum, path: path)
        case (.boolean, .bool):
            return nil
        case (_, .null):
            return ValidationError(path: path, rule: "must not be null")
        default:
            return ValidationError(path: path, rule: "expected \(self.expected)")
        }
    }

    private static func bounds(_ value: Double, _ minimum: Double?, _ maximum: Double?, path: String)
        -> ValidationError?
    {
        if let minimum, value < minimum {
            return ValidationError(path: path, rule: "must be at least \(Self.text(minimum))")
        }
        if let maximum, value > maximum {
            return ValidationError(path: path, rule: "must be at most \(Self.text(maximum))")
        }
        return nil
    }

    private static func text(_ bound: Double) -> String {
        bound.rounded() == bound && abs(bound) < 1e18 ? String(Int64(bound)) : String(bound)
    }
}
