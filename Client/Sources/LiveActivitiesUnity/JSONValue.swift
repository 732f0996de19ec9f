import Foundation

/// Any JSON value, read from the caller's text and encoded back as it was (integers stay integers, `true` stays a
/// bool): the content state `GatewayClient.scheduleUpdate` encodes.
enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The JSON text `text` (UTF-8), or an invalid-argument error naming `name`.
    static func parse(_ text: String, _ name: String) throws(BridgeError) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        } catch {
            throw .invalidArgument("\(name) is not JSON: \(text.prefix(200))", path: name)
        }
    }
}

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
