import Foundation
import LiveActivitiesCore
import Testing

/// The fast pass over a request's bytes (`ControlCharacters.mayOccur`): it must see every control character free text
/// may not carry, escaped or raw, and let the rest through to the decoder without a second look.
@Suite struct ControlCharactersScanTests {
    static func scan(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { ControlCharacters.mayOccur(inJSON: $0) }
    }

    @Test func escapedControlCharactersAreSeen() {
        #expect(Self.scan(#"{"a":"x\u0000"}"#))
        #expect(Self.scan(#"{"a":"\u001F"}"#))
        #expect(Self.scan(#"{"a":"\u007f"}"#))
        #expect(Self.scan(#"{"\u0085":1}"#))
    }

    @Test func rawDeleteAndC1AreSeen() {
        #expect(Self.scan("{\"a\":\"x\u{7F}\"}"))
        #expect(Self.scan("{\"a\":\"x\u{85}\"}"))
    }

    @Test func whatFreeTextMayCarryPasses() {
        #expect(!Self.scan(#"{"a":"tab\u0009 lf\n cr\r ok","b":"é ü \u00e9"}"#))
        // An escaped backslash followed by the text u0000 is no escape of NUL.
        #expect(!Self.scan(#"{"a":"\\u0000"}"#))
        // Cut short: the decoder refuses it; the scan has nothing to name.
        #expect(!Self.scan(#"{"a":"\u00"#))
        #expect(!Self.scan(#"{"a":"x\"#))
        #expect(!Self.scan(""))
    }
}
