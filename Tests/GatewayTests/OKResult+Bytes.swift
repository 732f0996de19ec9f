import Foundation
import LiveActivitiesCore
import NIOCore
import Testing

@testable import Gateway

/// The device API's answer written by hand (`OKResult`) is the JSON `OK` would write, for every word it answers with.
@Suite struct OKResultBytesTests {
    @Test func everyWordIsWrittenAsTheEncoderWould() throws {
        let decisions: [ActivityTrackDecision] = [
            .start, .unchanged, .rotate(instanceID: 1), .replace(instanceID: 1), .refuseEnded,
        ]
        let words = decisions.map(\.result) + [PushToStartResult.created, .replaced, .unchanged].map(\.rawValue)
        for word in words {
            let buffer = try #require(OKResult.written(word), "\(word)")
            let object = try JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any]
            #expect(object?["ok"] as? Bool == true)
            #expect(object?["result"] as? String == word)
            #expect(String(buffer: buffer) == #"{"ok":true,"result":"\#(word)"}"#)
        }
    }

    @Test func aResultThatNeedsEscapingGoesThroughTheEncoder() {
        #expect(OKResult.written(#"a"b"#) == nil)
        #expect(OKResult.written("Started") == nil)
    }
}
