import Foundation

/// Teak's `systemData`: Apple's system fields of an update. Keys as Teak spells them (`stale-date`) or as the gateway
/// does (`stale_date`); dates in epoch seconds.
struct SystemFields: Sendable, Equatable {
    var event: String?
    var staleDate: Date?
    var dismissalDate: Date?

    static let name = "system_json"

    init(event: String? = nil, staleDate: Date? = nil, dismissalDate: Date? = nil) {
        self.event = event
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
    }

    /// From the caller's JSON object (nil: none of them).
    init(json text: String?) throws(BridgeError) {
        self.init()
        guard let text else { return }
        guard case .object(let fields) = try JSONValue.parse(text, Self.name) else {
            throw .invalidArgument("\(Self.name) is not a JSON object", path: Self.name)
        }
        for (key, value) in fields {
            switch (key, value) {
            case (_, .null):
                continue
            case ("event", .string(let event)):
                self.event = event
            case ("stale-date", _), ("stale_date", _):
                self.staleDate = try Self.date(value, key)
            case ("dismissal-date", _), ("dismissal_date", _):
                self.dismissalDate = try Self.date(value, key)
            case ("event", _):
                throw .invalidArgument("\(Self.name).event is not a string", path: "\(Self.name).event")
            default:
                throw .invalidArgument(
                    "\(Self.name) has \"\(key)\"; it takes event, stale-date and dismissal-date",
                    path: "\(Self.name).\(key)")
            }
        }
    }

    private static func date(_ value: JSONValue, _ key: String) throws(BridgeError) -> Date {
        switch value {
        case .integer(let seconds): return Date(timeIntervalSince1970: TimeInterval(seconds))
        case .number(let seconds): return Date(timeIntervalSince1970: seconds)
        default: throw .invalidArgument("\(name).\(key) is not epoch seconds", path: "\(name).\(key)")
        }
    }
}
