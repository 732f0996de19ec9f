import APNsCommon
import APNsTransport
import Crypto
import Foundation
import Testing

@testable import Simulator

@Suite struct RequestValidatorProviderTokenTests {
    let validator = RequestValidator(state: SimulatorState(), now: { Date() })

    @Test(arguments: [nil, "", "bearer", "bearer ", "Basic abc", "bearerx abc", "beare abc"])
    func aMissingOrNonBearerAuthorizationIsMissingProviderToken(_ header: String?) {
        var memory: VerifiedProviderToken?
        #expect(
            self.validator.checkProviderToken(header, topic: "com.example", verified: &memory) == .missingProviderToken)
    }

    @Test(arguments: ["bearer abc", "Bearer abc", "BEARER abc", "bEaReR a.b.c"])
    func theSchemeIsCaseInsensitiveAndAnUnverifiableTokenIsInvalid(_ header: String) {
        var memory: VerifiedProviderToken?
        #expect(
            self.validator.checkProviderToken(header, topic: "com.example", verified: &memory) == .invalidProviderToken)
        #expect(memory == nil)
    }

    /// A connection remembers the token it verified last; a key added since (here, the same key id narrowed to
    /// another bundle, then a new key pair) must be seen on that connection's very next request.
    @Test func aConnectionsRememberedTokenIsDroppedWhenAKeyChanges() throws {
        let state = SimulatorState()
        let validator = RequestValidator(state: state, now: { Date() })
        let key = P256.Signing.PrivateKey()
        state.addKey(TrustedKey(teamID: "TEAM", keyID: "KEY", publicKey: key.publicKey, bundleIDs: ["com.example"]))
        let header = try "bearer " + ProviderTokenMinter.mint(teamID: "TEAM", keyID: "KEY", key: key, issuedAt: Date())
        var remembered: VerifiedProviderToken?

        #expect(validator.checkProviderToken(header, topic: "com.example", verified: &remembered) == nil)
        #expect(remembered != nil)
        #expect(validator.checkProviderToken(header, topic: "com.example", verified: &remembered) == nil)

        state.addKey(TrustedKey(teamID: "TEAM", keyID: "KEY", publicKey: key.publicKey, bundleIDs: ["com.other"]))
        #expect(validator.checkProviderToken(header, topic: "com.example", verified: &remembered) == .topicDisallowed)

        let rotated = P256.Signing.PrivateKey()
        state.addKey(TrustedKey(teamID: "TEAM", keyID: "KEY", publicKey: rotated.publicKey, bundleIDs: nil))
        #expect(
            validator.checkProviderToken(header, topic: "com.example", verified: &remembered) == .invalidProviderToken)
        #expect(remembered == nil)
    }
}
