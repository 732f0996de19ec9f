import Foundation
import LiveActivitiesCore

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
/// - With the app's contract (`POST /contracts`): "ActivityKit decodes the content state with a default
///   `JSONDecoder`"; a payload whose `content-state` (or a start's `attributes`) would not decode is dropped without
///   a word, as the device drops it, and counted as `ignored_undecodable` (stricter: an end that does not decode is
///   dropped too, and the activity stays).
struct LiveActivityDevice {
    /// The contract of the app's build on this device, if the test gave one.
    var contract: AttributesContract?
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
    /// Payloads whose content would not decode under `contract`, and why (the first failure of each).
    private(set) var ignoredUndecodable = 0
    private(set) var undecodable: [String] = []
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
        if let contract, let failure = Self.undecodable(body, contract) {
            self.ignoredUndecodable += 1
            self.undecodable.append(failure)
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

    struct Payload: Decodable {
        struct APS: Decodable {
            var contentState: JSONValue?
            var attributes: JSONValue?
            enum CodingKeys: String, CodingKey {
                case attributes
                case contentState = "content-state"
            }
        }
        var aps: APS
    }

    /// Why `body` would not decode into the app's types, or nil.
    static func undecodable(_ body: Data, _ contract: AttributesContract) -> String? {
        guard let payload = try? JSONDecoder().decode(Payload.self, from: body) else { return "aps: not decodable" }
        if let state = payload.aps.contentState,
            let violation = contract.contentState.violation(in: state, path: "content-state")
        {
            return "\(violation.path): \(violation.rule)"
        }
        if let attributes = payload.aps.attributes,
            let violation = contract.attributes.violation(in: attributes, path: "attributes")
        {
            return "\(violation.path): \(violation.rule)"
        }
        return nil
    }

    /// The device after `bodies`, in the order they were received.
    static func replaying(_ bodies: [Data], contract: AttributesContract? = nil) -> Self {
        var device = Self()
        device.contract = contract
        for body in bodies { device.receive(body) }
        return device
    }

    /// The `Date` fields on screen as the app decodes them (seconds since 2001), as ISO 8601 instants by path.
    var dates: [String: String] {
        guard let contract, let state = self.contentState,
            let data = try? JSONSerialization.data(withJSONObject: state),
            let value = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return [:] }
        var found: [String: String] = [:]
        Self.collectDates(contract.contentState, value, path: "content_state", into: &found)
        return found
    }

    private static func collectDates(
        _ schema: ContractSchema, _ value: JSONValue, path: String, into found: inout [String: String]
    ) {
        switch (schema, value) {
        case (.nullable(let inner), _): collectDates(inner, value, path: path, into: &found)
        case (.object(let properties, _, let additional), .object(let fields)):
            for (name, field) in fields {
                if let schema = properties[name] ?? additional {
                    collectDates(schema, field, path: "\(path).\(name)", into: &found)
                }
            }
        case (.array(let items), .array(let elements)):
            for (index, element) in elements.enumerated() {
                collectDates(items, element, path: "\(path)[\(index)]", into: &found)
            }
        case (.number(_, _, true), .integer(let seconds)):
            found[path] = Date(timeIntervalSinceReferenceDate: TimeInterval(seconds)).ISO8601Format()
        case (.number(_, _, true), .number(let seconds)):
            found[path] = Date(timeIntervalSinceReferenceDate: seconds).ISO8601Format()
        default: break
        }
    }

    var json: [String: Any] {
        [
            "content_state": self.contentState ?? NSNull(), "timestamp": self.timestamp.map { $0 as Any } ?? NSNull(),
            "ended": self.ended, "applied": self.applied, "ignored_as_older": self.ignoredAsOlder,
            "ignored_after_end": self.ignoredAfterEnd, "received": self.received,
            "ignored_undecodable": self.ignoredUndecodable, "undecodable": self.undecodable,
            "dates": self.dates,
        ]
    }
}
