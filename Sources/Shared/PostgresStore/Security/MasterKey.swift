import Crypto
import Foundation
import LiveActivitiesCore

/// The operator's key that seals APNs private keys at rest (AES-256-GCM).
public struct MasterKey: Sendable {
    struct InvalidKey: Error {}

    let key: SymmetricKey

    public init(base64: String) throws {
        guard let data = Data(base64Encoded: base64.trimmingCharacters(in: .whitespacesAndNewlines)), data.count == 32
        else { throw InvalidKey() }
        self.key = SymmetricKey(data: data)
    }

    public init(key: SymmetricKey) {
        self.key = key
    }

    public static func random() -> MasterKey { MasterKey(key: SymmetricKey(size: .bits256)) }

    /// Seals `plaintext`; the result is nonce || ciphertext || tag, bound to `context` (e.g. the app key)
    /// so a sealed blob cannot be moved to another row.
    public func seal(_ plaintext: some DataProtocol, context: String) throws -> [UInt8] {
        let box = try AES.GCM.seal(plaintext, using: self.key, authenticating: Array(context.utf8))
        guard let combined = box.combined else { throw InvalidKey() }
        return Array(combined)
    }

    public func open(_ sealed: [UInt8], context: String) throws -> [UInt8] {
        let box = try AES.GCM.SealedBox(combined: sealed)
        return Array(try AES.GCM.open(box, using: self.key, authenticating: Array(context.utf8)))
    }
}
