import Crypto
import Foundation

/// An APNs auth key (`.p8`): a P-256 private key in PEM.
public struct APNsSigningKey: Sendable {
    public enum ParseError: Error, Equatable {
        case notPEM
        case notP256
    }

    public let privateKey: P256.Signing.PrivateKey
    /// SHA-256 of the public key, in hex: what provider tokens and connection pools are keyed by, with the ids. The
    /// team and key ids are not secret, so two apps registered with the same ids and different keys must not share a
    /// token (one would sign for, or poison, the other's).
    public let fingerprint: String

    public init(pem: String) throws(ParseError) {
        let trimmed = pem.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("-----BEGIN "), trimmed.hasSuffix("-----") else { throw .notPEM }
        do {
            self.init(privateKey: try P256.Signing.PrivateKey(pemRepresentation: trimmed))
        } catch {
            throw .notP256
        }
    }

    public init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
        self.fingerprint = SHA256.hash(data: privateKey.publicKey.x963Representation)
            .map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
    }

    public var pem: String { self.privateKey.pemRepresentation }
    public var publicKeyPEM: String { self.privateKey.publicKey.pemRepresentation }
}
