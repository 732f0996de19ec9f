import Foundation
import Testing

@testable import Gateway

/// The `Authorization` header is parsed once per request, by hand: these are the cases the old `split` and
/// `lowercased()` version accepted and refused.
@Suite struct BasicCredentialsParsingTests {
    static let key = "AAAAAAAAAAAAAAAAAAAAAA"

    static func header(_ scheme: String, _ pair: String) -> String {
        "\(scheme) \(Data(pair.utf8).base64EncodedString())"
    }

    @Test(arguments: ["Basic", "basic", "BASIC", "bAsIc"])
    func theSchemeIsCaseInsensitive(scheme: String) throws {
        let parsed = try #require(BasicCredentials(Self.header(scheme, "\(Self.key):s3cret:with:colons")))
        #expect(parsed.appKey == Self.key)
        #expect(parsed.secret == "s3cret:with:colons")
    }

    @Test(arguments: [
        nil, "", "Basic", "Basic ", "Bearer abc", "Basic !!!",
        "Basic\u{0}" + Data("\(Self.key):secret".utf8).base64EncodedString(),
        Self.header("Basic", "no-colon"), Self.header("Basic", "\(Self.key):"), Self.header("Basic", "short:secret"),
        Self.header("Basics", "\(Self.key):secret"), Self.header("Basic ", "\(Self.key):secret"),
    ])
    func malformedHeadersAreRefused(header: String?) {
        #expect(BasicCredentials(header) == nil)
    }
}
