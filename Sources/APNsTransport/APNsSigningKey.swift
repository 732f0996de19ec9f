import Crypto
import Foundation

/// An APNs auth key (`.p8`): a P-256 private key in PEM.
public struct APNsSigningKey: Sendable {
    public enum ParseError: Error, Equatable {
        case notPEM
        case notP256
    }

    public let privateKey: P256.Signing.PrivateKey

    public init(pem: String) throws(ParseError) {
        let trimmed = pem.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("-----BEGIN "), trimmed.hasSuffix("-----") else { throw .notPEM }
        do {
            self.privateKey = try P256.Signing.PrivateKey(pemRepresentation: trimmed)
        } catch {
            throw .notP256
        }
    }

    public init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    public var pem: String { self.privateKey.pemRepresentation }
    public var publicKeyPEM: String { self.privateKey.publicKey.pemRepresentation }
}
