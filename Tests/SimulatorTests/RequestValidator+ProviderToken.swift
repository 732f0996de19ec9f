import Foundation
import Testing

@testable import Simulator

@Suite struct RequestValidatorProviderTokenTests {
    let validator = RequestValidator(state: SimulatorState(), now: { Date() })

    @Test(arguments: [nil, "", "bearer", "bearer ", "Basic abc", "bearerx abc", "beare abc"])
    func aMissingOrNonBearerAuthorizationIsMissingProviderToken(_ header: String?) {
        #expect(self.validator.checkProviderToken(header, topic: "com.example") == .missingProviderToken)
    }

    @Test(arguments: ["bearer abc", "Bearer abc", "BEARER abc", "bEaReR a.b.c"])
    func theSchemeIsCaseInsensitiveAndAnUnverifiableTokenIsInvalid(_ header: String) {
        #expect(self.validator.checkProviderToken(header, topic: "com.example") == .invalidProviderToken)
    }
}
