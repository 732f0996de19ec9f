import Crypto
import Foundation
import LiveActivitiesCore

/// App keys and secrets: 22 characters of `[A-Za-z0-9_-]` (16 random bytes, base64url), as Airship's are;
/// `generate(bytes:)` makes longer ones the same way (channel secrets).
public enum Credentials {
    public static func generate(bytes count: Int = 16) -> String {
        var bytes = [UInt8](repeating: 0, count: count)
        var rng = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = rng.next() }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func isWellFormed(_ value: some StringProtocol) -> Bool {
        value.utf8.count == 22
            && value.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D
                    || c == 0x5F
            }
    }
}

/// A salted SHA-256 of a high-entropy secret: `salt(16) || digest(32)`.
///
/// The secrets are 128-bit random values, so a fast hash is not brute-forceable; the salt keeps equal
/// secrets from having equal hashes. Verification is constant-time in the digest comparison.
public struct SecretHash: Sendable, Equatable {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    public static func make(_ secret: String) -> SecretHash {
        var salt = [UInt8](repeating: 0, count: 16)
        var rng = SystemRandomNumberGenerator()
        for i in salt.indices { salt[i] = rng.next() }
        return SecretHash(bytes: salt + Self.digest(salt: salt, secret: secret))
    }

    public func matches(_ secret: String) -> Bool {
        guard self.bytes.count == 48 else { return false }
        let salt = Array(self.bytes[0..<16])
        let expected = self.bytes[16...]
        let actual = Self.digest(salt: salt, secret: secret)
        var difference: UInt8 = 0
        for (a, b) in zip(expected, actual) { difference |= a ^ b }
        return difference == 0
    }

    static func digest(salt: [UInt8], secret: String) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: salt)
        hasher.update(data: Array(secret.utf8))
        return Array(hasher.finalize())
    }
}
