import Foundation
import Testing

@testable import Simulator

/// The device model the simulator judges deliveries by: Apple's rules on the Live Activity payload.
@Suite struct LiveActivityDeviceRuleTests {
    static func body(_ event: String, _ timestamp: Int, _ state: Int) -> Data {
        Data(#"{"aps":{"event":"\#(event)","timestamp":\#(timestamp),"content-state":{"s":\#(state)}}}"#.utf8)
    }

    static func shown(_ device: LiveActivityDevice) -> Int? {
        (device.contentState as? [String: Any])?["s"] as? Int
    }

    @Test func anOlderTimestampIsIgnored() {
        // "If this is older than a previous update or push payload, the system ignores this update."
        let device = LiveActivityDevice.replaying([Self.body("update", 100, 1), Self.body("update", 99, 2)])
        #expect(Self.shown(device) == 1 && device.applied == 1 && device.ignoredAsOlder == 1)
    }

    @Test func anEqualTimestampIsAppliedSoTheLastReceivedWins() {
        let device = LiveActivityDevice.replaying([Self.body("update", 100, 1), Self.body("update", 100, 2)])
        #expect(Self.shown(device) == 2 && device.applied == 2 && device.ignoredAsOlder == 0)
    }

    @Test func anEndEndsTheActivityAndNothingRevivesIt() {
        let device = LiveActivityDevice.replaying([
            Self.body("update", 100, 1), Self.body("end", 100, 3), Self.body("update", 101, 4),
        ])
        #expect(device.ended && Self.shown(device) == 3 && device.ignoredAfterEnd == 1)
        #expect(device.received.count == 3)
    }

    @Test func anEndOlderThanWhatWasAppliedIsIgnoredToo() {
        let device = LiveActivityDevice.replaying([Self.body("update", 100, 1), Self.body("end", 99, 2)])
        #expect(!device.ended && Self.shown(device) == 1)
    }
}
