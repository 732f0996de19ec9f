import Foundation

public enum TagRules {
    public static func tag(_ tag: String, path: String) throws(ValidationError) {
        guard !tag.isEmpty, tag.utf8.count <= 128 else {
            throw ValidationError(path: path, rule: "must be 1 to 128 bytes")
        }
        try ControlCharacters.refuseAny(tag, path: path)
    }

    public static func group(_ group: String, path: String) throws(ValidationError) {
        guard !group.isEmpty, group.utf8.count <= 64,
            group.utf8.allSatisfy({
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F || $0 == 0x2D
            })
        else { throw ValidationError(path: path, rule: "must be 1 to 64 characters of a-z, 0-9, _ and -") }
    }
}
