import Crypto
import Foundation
import LiveActivitiesCore

/// A channel's secret: 32 random bytes as 43 characters of base64url, returned once as `channel_secret`, stored as
/// its SHA-256. The secret is random and long, so an unsalted digest is safe to keep and to compare in SQL.
public enum ChannelSecret {
    public static func generate() -> String { Credentials.generate(bytes: 32) }

    /// The stored form: SHA-256 of the secret's UTF-8 bytes.
    public static func digest(_ secret: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(secret.utf8)))
    }

    /// The proof of a call that presented `header` (`X-Channel-Secret`, nil when absent) with the app secret.
    public static func deviceProof(header: String?) -> ChannelProof {
        .device(digest: header.map { Self.hex(Self.digest($0)) })
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
        return String(decoding: text, as: UTF8.self)
    }
}

extension ChannelProof {
    /// As the track statement takes it: '' for the master secret (not checked), the digest in hex, or '-' for a
    /// device that presented none (matches only a channel without a secret).
    var statementValue: String {
        switch self {
        case .server: ""
        case .device(let digest): digest ?? "-"
        }
    }
}
