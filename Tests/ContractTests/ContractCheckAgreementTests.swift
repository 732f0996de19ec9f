import Foundation
import LiveActivitiesContracts
import LiveActivitiesCore
import Testing

/// The judge is Foundation's `JSONDecoder` (Apple: ActivityKit decodes the content state with a default one), not our
/// reading of it: for a contract the client made from real Swift types, the gateway's check refuses a content state
/// exactly when the bytes the gateway would send do not decode into those types. Each case is a mutation of a valid
/// content state at one place: removed, null, or another JSON value.
@Suite struct ContractCheckAgreementTests {
    /// `{"aps": {"content-state": State}}`: how the device reads what APNs delivers.
    struct Envelope<State: Decodable>: Decodable {
        struct APS: Decodable {
            var contentState: State
            enum CodingKeys: String, CodingKey { case contentState = "content-state" }
        }
        var aps: APS
    }

    /// The values a field is replaced with: every JSON kind, and the edges of the numeric types.
    static let replacements: [JSONValue] = [
        .null, .bool(true), .string("x"), .string("in_play"), .string("2026-11-27T15:00:00Z"), .integer(0),
        .integer(-1), .integer(3), .integer(256), .integer(70_000), .integer(Int64.max), .number(1.5), .number(3.0),
        .number(1e20), .number(-1e40), .array([]), .array([.integer(1), .null]), .object([:]),
        .object(["player": .string("K"), "minute": .integer(1)]),
    ]

    /// `{"aps": {"attributes": Attributes}}`: a start's attributes, as the device reads them.
    struct StartEnvelope<Attributes: Decodable>: Decodable {
        struct APS: Decodable { var attributes: Attributes }
        var aps: APS
    }

    static func contract() throws -> AttributesContract {
        let made = try ActivityContract.make(
            contentState: ContractMakerMatch.ContentState.self, attributes: ContractMakerMatch.self)
        let document = try JSONDecoder().decode(JSONValue.self, from: made.jsonData())
        return try AttributesContract(attributesType: "Match", version: 1, document: document)
    }

    @Test func theContentStateCheckRefusesExactlyWhatJSONDecoderCannotDecode() throws {
        let contract = try Self.contract()
        try Self.compare(contract.contentState, ContractMakerAgreementTests.state) { state in
            let notification = LiveActivityNotification(event: .update, name: "m", contentState: state)
            let bytes = try APNsPayload.encode(notification, timestamp: 1, path: "", maxBytes: 1 << 20)
            return (try? JSONDecoder().decode(Envelope<ContractMakerMatch.ContentState>.self, from: Data(bytes))) != nil
        }
    }

    @Test func theAttributesCheckRefusesExactlyWhatJSONDecoderCannotDecode() throws {
        let contract = try Self.contract()
        let attributes = ContractMakerMatch(
            matchID: UUID(), home: .init(name: "A", crest: URL(string: "https://example.com/a.png")),
            away: .init(name: "B"), venue: URL(string: "https://example.com")!, labels: ["cup": ["final"]],
            kickoff: Date(timeIntervalSinceReferenceDate: 786_000_000))
        try Self.compare(contract.attributes, attributes) { attributes in
            let notification = LiveActivityNotification(
                event: .start, name: "m", attributesType: "Match", attributes: attributes, contentState: [:])
            let bytes = try APNsPayload.encode(notification, timestamp: 1, path: "", maxBytes: 1 << 20)
            return (try? JSONDecoder().decode(StartEnvelope<ContractMakerMatch>.self, from: Data(bytes))) != nil
        }
    }

    /// The check's verdict and the device's (`decodes`, on the bytes the gateway sends) for every mutation of `valid`.
    static func compare<T: Encodable>(
        _ schema: LiveActivitiesCore.ContractSchema, _ valid: T, decodes: ([String: JSONValue]) throws -> Bool
    ) throws {
        let value = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(valid))
        var cases = 0
        var refused = 0
        for mutated in Self.mutations(of: value) {
            guard case .object(let fields) = mutated.value else { continue }
            let verdict = schema.violation(in: mutated.value, path: "")
            let device = try decodes(fields)
            #expect(
                (verdict == nil) == device, "\(mutated.place): check says \(verdict?.rule ?? "ok"), decoder \(device)")
            cases += 1
            if verdict != nil { refused += 1 }
        }
        // Enough of both verdicts for the comparison to mean something.
        #expect(cases > 100 && refused > 50 && cases - refused > 20, "\(cases) cases, \(refused) refused")
    }

    /// Every object property and the first element of every array, removed (properties only) or replaced.
    static func mutations(of value: JSONValue, at place: String = "") -> [(place: String, value: JSONValue)] {
        var found: [(String, JSONValue)] = [("", value)]
        switch value {
        case .object(let fields):
            for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
                var removed = fields
                removed[key] = nil
                found.append(("\(place).\(key) removed", .object(removed)))
                for replacement in Self.replacements {
                    var replaced = fields
                    replaced[key] = replacement
                    found.append(("\(place).\(key) = \(replacement)", .object(replaced)))
                }
                for (inner, mutated) in Self.mutations(of: field, at: "\(place).\(key)").dropFirst() {
                    var nested = fields
                    nested[key] = mutated
                    found.append((inner, .object(nested)))
                }
            }
        case .array(let elements) where !elements.isEmpty:
            for (inner, mutated) in Self.mutations(of: elements[0], at: "\(place)[0]") {
                var changed = elements
                changed[0] = mutated
                found.append((inner.isEmpty ? "\(place)[0]" : inner, .array(changed)))
            }
        default:
            break
        }
        return found
    }
}
