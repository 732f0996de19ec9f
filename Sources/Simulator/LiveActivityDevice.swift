import Foundation

/// What a device shows for one Live Activity, given the payloads APNs delivered to its token in order: the simulator
/// replays its recordings through this (`GET /activities`), so tests assert on what a user would see, judged by
/// Apple's rules rather than by the gateway's own.
///
/// The rules, from Apple's documentation of the Live Activity payload (stricter where it is silent):
/// - `timestamp`: "If this is older than a previous update or push payload, the system ignores this update." A payload
///   with an equal timestamp is applied, so of equal timestamps the last one received wins.
/// - `end`: the activity ends; it shows the end's `content-state` if it has one. An end older than the last payload
///   applied is ignored like any other (the text says "push payload"; nothing exempts an end).
/// - Nothing is applied to an activity once it has ended (stricter: a later push cannot revive it).
struct LiveActivityDevice {
    /// The content state on screen, as JSON.
    private(set) var contentState: Any?
    /// The timestamp of the last payload applied.
    private(set) var timestamp: Int64?
    private(set) var ended = false
    private(set) var applied = 0
    /// Payloads received with a timestamp older than one already applied.
    private(set) var ignoredAsOlder = 0
    /// Payloads received after the activity had ended.
    private(set) var ignoredAfterEnd = 0
    /// The content state of every payload received, applied or not, in order (null where one had none).
    private(set) var received: [Any] = []

    /// Applies one delivered APNs body.
    mutating func receive(_ body: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let aps = object["aps"] as? [String: Any]
        else { return }
        let timestamp = (aps["timestamp"] as? NSNumber)?.int64Value ?? 0
        self.received.append(aps["content-state"] ?? NSNull())
        if self.ended {
            self.ignoredAfterEnd += 1
            return
        }
        if let last = self.timestamp, timestamp < last {
            self.ignoredAsOlder += 1
            return
        }
        self.applied += 1
        self.timestamp = timestamp
        if let state = aps["content-state"] { self.contentState = state }
        if aps["event"] as? String == "end" { self.ended = true }
    }

    /// The device after `bodies`, in the order they were received.
    static func replaying(_ bodies: [Data]) -> Self {
        var device = Self()
        for body in bodies { device.receive(body) }
        return device
    }

    var json: [String: Any] {
        [
            "content_state": self.contentState ?? NSNull(), "timestamp": self.timestamp.map { $0 as Any } ?? NSNull(),
            "ended": self.ended, "applied": self.applied, "ignored_as_older": self.ignoredAsOlder,
            "ignored_after_end": self.ignoredAfterEnd, "received": self.received,
        ]
    }
}
