import Crypto
import LiveActivitiesCore

/// An app's APNs key as an operator gives it: team id, key id, environment and the `.p8` private key (PEM). The
/// store seals the PEM at rest; the worker's delivery turns it into the transport's credentials. Checked on the
/// way in, so a stored key always parses.
public struct APNsKeyMaterial: Sendable {
    public enum ParseError: Error, Equatable {
        case notPEM
        case notP256
    }

    public var teamID: String
    public var keyID: String
    public var environment: AppEnvironment
    /// The P-256 private key in PEM.
    public var privateKeyPEM: String

    /// Fails unless `pem` is a P-256 private key in PEM.
    public init(teamID: String, keyID: String, environment: AppEnvironment, pem: String) throws(ParseError) {
        let trimmed = pem.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("-----BEGIN "), trimmed.hasSuffix("-----") else { throw .notPEM }
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: trimmed) else { throw .notP256 }
        self.teamID = teamID
        self.keyID = keyID
        self.environment = environment
        self.privateKeyPEM = key.pemRepresentation
    }
}
