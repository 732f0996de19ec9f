import Crypto
import Foundation
import Synchronization

/// Mints APNs provider tokens: ES256 JWTs `{alg: ES256, kid: <key id>}.{iss: <team id>, iat: <now>}`.
public enum ProviderTokenMinter {
    public static func mint(teamID: String, keyID: String, key: P256.Signing.PrivateKey, issuedAt: Date) throws
        -> String
    {
        let header = #"{"alg":"ES256","kid":"\#(keyID)"}"#
        let claims = #"{"iss":"\#(teamID)","iat":\#(Int(issuedAt.timeIntervalSince1970))}"#
        let signingInput = base64URL(Data(header.utf8)) + "." + base64URL(Data(claims.utf8))
        let signature = try key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + base64URL(signature.rawRepresentation)
    }

    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func decodeBase64URL(_ string: Substring) -> Data? {
        var s = string.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }
}
