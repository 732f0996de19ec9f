/// Bad input, named by the JSON path of the field and the rule it broke.
/// The gateway turns it into `400 {"ok":false,"error":..., "details":{"path":..., "rule":...}}`.
public struct ValidationError: Error, Equatable, Sendable {
    public let path: String
    public let rule: String

    public init(path: String, rule: String) {
        self.path = path
        self.rule = rule
    }
}

/// Field rules shared by the APIs. Pure functions: no I/O.
public enum FieldRules {
    /// Apple team ids and key ids: ten characters of A-Z and 0-9.
    public static func appleIdentifier(_ value: String, path: String) throws(ValidationError) {
        guard value.utf8.count == 10,
            value.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) })
        else { throw ValidationError(path: path, rule: "must be 10 characters of A-Z and 0-9") }
    }

    /// A reverse-DNS bundle id such as `com.example.game`.
    public static func bundleID(_ value: String, path: String) throws(ValidationError) {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        let ok =
            value.utf8.count <= 155 && parts.count >= 2
            && parts.allSatisfy { part in
                !part.isEmpty
                    && part.utf8.allSatisfy {
                        ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                            || $0 == 0x2D
                    }
            }
        guard ok else {
            throw ValidationError(path: path, rule: "must be a reverse-DNS bundle id like com.example.app")
        }
    }

    /// An identifier-like text (an install id, a named user, a locale): no control characters at all.
    public static func text(_ value: String, path: String, maxLength: Int) throws(ValidationError) {
        guard !value.isEmpty, value.utf8.count <= maxLength else {
            throw ValidationError(path: path, rule: "must be 1 to \(maxLength) bytes")
        }
        try ControlCharacters.refuseAny(value, path: path)
    }
}
