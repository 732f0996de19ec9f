import Foundation

/// Input rules of the device registry. Pure functions: no I/O.
public enum RegistryRules {
    /// A build's contract version (`contract_version`, docs/contracts.md): 1 to 1,000,000; 0 when absent.
    public static func contractVersion<Key: CodingKey>(_ c: KeyedDecodingContainer<Key>, _ key: Key) throws -> Int {
        guard let version = try c.decodeIfPresent(Int.self, forKey: key) else { return 0 }
        guard AttributesContract.versions.contains(version) else {
            throw ValidationError(
                path: ValidationError.path(c.codingPath + [key]), rule: "must be 1 to 1000000")
        }
        return version
    }

    /// APNs tokens are the bytes iOS gives, in hex: even length, 8 to 200 bytes. Upper case is accepted and
    /// stored lower case (the form APNs paths and our indexes use).
    public static func token(_ raw: String, path: String) throws(ValidationError) -> String {
        let bytes = raw.utf8
        guard bytes.count % 2 == 0, (16...400).contains(bytes.count) else {
            throw ValidationError(path: path, rule: "must be hex of an even length between 16 and 400 characters")
        }
        guard bytes.allSatisfy(Self.isHexDigit) else {
            throw ValidationError(path: path, rule: "must contain only the hex digits 0-9 and a-f")
        }
        return raw.lowercased()
    }

    /// A broadcast channel id as Apple gives it: base64, of no fixed length (at most 256 characters here).
    public static func broadcastChannelID(_ raw: String, path: String) throws(ValidationError) {
        guard (1...256).contains(raw.utf8.count), raw.utf8.allSatisfy(Self.isBase64Byte),
            Data(base64Encoded: raw) != nil
        else {
            throw ValidationError(path: path, rule: "must be a broadcast channel id: base64, at most 256 characters")
        }
    }

    static func isBase64Byte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
            true
        default: false
        }
    }

    /// Activity names (`chest_timer_0`, `match:1234`): 1 to 64 characters of A-Z, a-z, 0-9 and `_ . : -`.
    public static func activityName(_ name: String, path: String) throws(ValidationError) {
        guard (1...64).contains(name.utf8.count), name.utf8.allSatisfy({ Self.isWordByte($0) || $0 == 0x3A }) else {
            throw ValidationError(
                path: path, rule: "must be 1 to 64 characters of A-Z, a-z, 0-9, '_', '.', ':' and '-'")
        }
    }

    /// `ActivityAttributes` type names as Swift spells them (`MatchAttributes`, `Game.ChestAttributes`).
    public static func attributesType(_ type: String, path: String) throws(ValidationError) {
        guard (1...128).contains(type.utf8.count), let first = type.utf8.first, !(0x30...0x39).contains(first),
            type.utf8.allSatisfy({ Self.isWordByte($0) && $0 != 0x2D })
        else {
            throw ValidationError(
                path: path, rule: "must be a Swift type name: 1 to 128 characters of A-Z, a-z, 0-9, '_' and '.'")
        }
    }

    /// The `Activity.id` iOS gives (a UUID string in practice): 1 to 128 printable ASCII characters.
    public static func systemActivityID(_ id: String, path: String) throws(ValidationError) {
        guard (1...128).contains(id.utf8.count), id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ValidationError(path: path, rule: "must be 1 to 128 printable ASCII characters")
        }
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
    }

    static func isWordByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
            || byte == 0x2E || byte == 0x2D
    }
}
