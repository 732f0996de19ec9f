/// NUL and the other control characters in text input. PostgreSQL stores no NUL in `text` or `jsonb` (an insert of
/// one failed with a 500), and no field of ours has a use for the others; free text (an alert's body, a content
/// state's strings) may keep tab, line feed and carriage return. Pure: no I/O.
public enum ControlCharacters {
    public static let rule = "must not contain NUL or other control characters"

    /// A control character free text may not carry: C0 but tab, LF and CR; DEL; C1.
    public static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0x7F...0x9F: true
        default: false
        }
    }

    /// Whether any string (or key) of a JSON text may carry one: an escape `\u00XX` of one, a raw DEL or a raw C1
    /// (raw C0 characters are not valid JSON inside strings). A fast pass over the bytes; `path(in:)` then names it.
    /// Over the bytes in place (a generic sequence from another module ran unspecialized: 3.3% of the gateway's CPU
    /// under the registry bench, `perf`).
    public static func mayOccur(inJSON bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var index = 0
        var previous: UInt8 = 0
        while index < count {
            let byte = bytes[index]
            index += 1
            if byte == 0x7F || (previous == 0xC2 && (0x80...0x9F).contains(byte)) { return true }
            previous = byte
            guard byte == UInt8(ascii: "\\") else { continue }
            guard index < count else { return false }
            let escaped = bytes[index]
            index += 1
            previous = 0
            guard escaped == UInt8(ascii: "u") else { continue }
            guard index + 4 <= count else { return false }
            var value: UInt32 = 0
            for digit in bytes[index..<index + 4] {
                guard let nibble = Self.hexValue(digit) else { return false }
                value = value << 4 | nibble
            }
            index += 4
            if let scalar = Unicode.Scalar(value), Self.isForbidden(scalar) { return true }
        }
        return false
    }

    /// The JSON path (`notification.alert`, `channel.tags[2]`) of the first string or key that carries one.
    public static func path(in value: JSONValue, at base: String = "") -> String? {
        switch value {
        case .string(let text):
            return text.unicodeScalars.contains(where: Self.isForbidden) ? base : nil
        case .array(let items):
            for (index, item) in items.enumerated() {
                if let found = Self.path(in: item, at: "\(base)[\(index)]") { return found }
            }
            return nil
        case .object(let fields):
            for key in fields.keys.sorted() {
                let path = base.isEmpty ? key : "\(base).\(key)"
                if key.unicodeScalars.contains(where: Self.isForbidden) { return path }
                if let found = Self.path(in: fields[key]!, at: path) { return found }
            }
            return nil
        case .null, .bool, .integer, .number:
            return nil
        }
    }

    /// Rejects every control character, tab and line feeds included: for names, ids and tags.
    public static func refuseAny(_ value: String, path: String) throws(ValidationError) {
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw ValidationError(path: path, rule: Self.rule)
        }
    }

    private static func hexValue(_ digit: UInt8) -> UInt32? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(digit - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(digit - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(digit - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
