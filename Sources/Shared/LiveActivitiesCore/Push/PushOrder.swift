/// The order in which a device applies Live Activity payloads, and what it means for each target of a push.
///
/// Apple, on the `timestamp` field of a Live Activity payload: "If this is older than a previous update or push
/// payload, the system ignores this update." An equal timestamp is applied, so of the payloads with the greatest
/// timestamp the last one received wins; an `end` ends the activity. Timestamps are whole seconds, so pushes posted
/// within one second tie, and only the order they are received in separates them.
///
/// A push's place is therefore its key (timestamp, then the order pushes were accepted in). The gateway keeps that
/// order on every device: a target is sent a push only if no newer push has reached it, and a newer push waits for an
/// older push's requests already in flight to the same name (`PushSupersession`, `BatchSend` in `Delivery`).
public struct PushOrder: Sendable, Hashable, Comparable {
    /// The APNs `timestamp`, epoch seconds.
    public var timestamp: Int64
    /// The order in which the gateway accepted the push (`pushes.seq`).
    public var seq: Int64

    public init(timestamp: Int64, seq: Int64) {
        self.timestamp = timestamp
        self.seq = seq
    }

    public static func < (a: Self, b: Self) -> Bool { (a.timestamp, a.seq) < (b.timestamp, b.seq) }

    /// What a push with this key and `event` does to one target, given the key of the last push sent to it.
    public func decision(for event: LiveActivityNotification.Event, lastSent: Self?) -> TargetDecision {
        // An `end` is never held back for its timestamp: it is what takes the activity off the Lock Screen. A start
        // goes to a push-to-start token, which has no last payload.
        guard event == .update, let lastSent else { return .send }
        // iOS would ignore it: "If this is older than a previous update or push payload, the system ignores this
        // update." Strictly older only: an equal timestamp is applied.
        if lastSent.timestamp > self.timestamp { return .skip }
        // Same second, and a push accepted after this one already reached the device: sending this one now would
        // put older content on top of newer.
        if lastSent.timestamp == self.timestamp && lastSent.seq > self.seq { return .supersede }
        return .send
    }

    /// Whether a push (`self`, `event`) makes the unsent targets of an unfinished push (`other`, `otherEvent`) of the
    /// same app and activity name its own. An `end` supersedes everything accepted before it (the activity ends
    /// either way, and the end is what must arrive); an update supersedes older updates only, never an end: an
    /// update that took an end's place would leave the activity on the Lock Screen.
    public func supersedes(
        _ other: Self, _ otherEvent: LiveActivityNotification.Event, as event: LiveActivityNotification.Event
    ) -> Bool {
        switch (event, otherEvent) {
        case (.end, .update), (.end, .end): return other.seq < self.seq
        case (.update, .update): return other < self
        default: return false
        }
    }
}

/// What happens to one target of a push.
public enum TargetDecision: Sendable, Equatable {
    /// Sent to APNs.
    case send
    /// Not sent: the device would ignore it (a newer timestamp was sent already). Counted `skipped`.
    case skip
    /// Not sent: a newer push to the same name reaches this target. Counted `superseded`.
    case supersede
}
