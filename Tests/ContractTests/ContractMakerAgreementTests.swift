import Foundation
import LiveActivitiesContracts
import LiveActivitiesCore
import Testing

/// The maker's required/optional split agrees with Foundation's own `JSONDecoder`, the one iOS decodes with: a
/// payload without a required property (or with it null) does not decode; one without an optional property does.
@Suite struct ContractMakerAgreementTests {
    static let state = ContractMakerMatch.ContentState(
        homeScore: 2, awayScore: 1, phase: .live, period: .second, minute: 67,
        kickoff: Date(timeIntervalSinceReferenceDate: 786_000_000),
        lastGoal: .init(player: "Kane", minute: 61, ownGoal: false), goals: [.init(player: "Kane", minute: 61)],
        possession: 0.56, shotsPerPeriod: [3, nil], odds: ["home": 1.5], flags: ["var"], note: "rain",
        attendance: 61_000, ratio: 1.25, crest: Data([1, 2]), sequence: 7, offset: -3, delta: 4, counter: 5, tilt: -1,
        expected: 1.7, isLive: true, followers: 12, rounds: [[1, 2]])

    @Test func contentState() throws {
        try self.check(
            ContractMakerMatch.ContentState.self, value: Self.state,
            schema: try ActivityContract.schema(of: ContractMakerMatch.ContentState.self))
    }

    @Test func attributes() throws {
        let attributes = ContractMakerMatch(
            matchID: UUID(), home: .init(name: "A", crest: URL(string: "https://example.com/a.png")),
            away: .init(name: "B"), venue: URL(string: "https://example.com")!, labels: ["cup": ["final"]],
            kickoff: Date())
        try self.check(
            ContractMakerMatch.self, value: attributes, schema: try ActivityContract.schema(of: ContractMakerMatch.self)
        )
    }

    /// Every property of every object in `schema`, at its place in `value`'s JSON (array elements through the first).
    private func check<T: Codable>(_ type: T.Type, value: T, schema: LiveActivitiesContracts.ContractSchema) throws {
        let payload = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value))
        #expect(Self.decodes(T.self, payload))
        // The maker's types are the ones a default JSONEncoder writes (Date and Decimal numbers, Data a string...),
        // as the gateway's check reads the made schema.
        let json = try JSONDecoder().decode(LiveActivitiesCore.JSONValue.self, from: JSONEncoder().encode(value))
        let document = try JSONDecoder().decode(
            LiveActivitiesCore.JSONValue.self,
            from: JSONEncoder().encode(["content_state": schema, "attributes": schema]))
        let contract = try AttributesContract(attributesType: "T", version: 1, document: document)
        #expect(contract.contentState.violation(in: json, path: "") == nil)
        var checked = 0
        func visit(_ schema: LiveActivitiesContracts.ContractSchema, at path: [Step]) throws {
            switch schema {
            case .object(let properties, let required):
                for (key, property) in properties {
                    let isRequired = required.contains(key)
                    let missing = try Self.editing(payload, at: path) { $0.removeValue(forKey: key) }
                    let null = try Self.editing(payload, at: path) { $0[key] = NSNull() }
                    #expect(Self.decodes(T.self, missing) == !isRequired, "\(path) \(key) missing")
                    #expect(Self.decodes(T.self, null) == !isRequired, "\(path) \(key) null")
                    checked += 1
                    try visit(property, at: path + [.key(key)])
                }
            case .array(let items): try visit(items, at: path + [.first])
            case .nullable(let wrapped): try visit(wrapped, at: path)
            default: break
            }
        }
        try visit(schema, at: [])
        // The walk reached the nested objects (the goals' and the teams' properties), not only the top level.
        #expect(checked > (try #require(Self.properties(schema))))
    }

    private enum Step: CustomStringConvertible {
        case key(String)
        case first
        var description: String {
            switch self {
            case .key(let key): key
            case .first: "[0]"
            }
        }
    }

    private static func properties(_ schema: LiveActivitiesContracts.ContractSchema) -> Int? {
        if case .object(let properties, _) = schema { return properties.count }
        return nil
    }

    private static func decodes<T: Decodable>(_ type: T.Type, _ payload: Any) -> Bool {
        guard let data = try? JSONSerialization.data(withJSONObject: payload) else { return false }
        return (try? JSONDecoder().decode(T.self, from: data)) != nil
    }

    /// `payload` with the object at `path` changed by `edit`.
    private static func editing(_ payload: Any, at path: [Step], _ edit: (inout [String: Any]) -> Void) throws -> Any {
        guard let step = path.first else {
            var object = try #require(payload as? [String: Any])
            edit(&object)
            return object
        }
        let rest = Array(path.dropFirst())
        switch step {
        case .key(let key):
            var object = try #require(payload as? [String: Any])
            object[key] = try Self.editing(try #require(object[key]), at: rest, edit)
            return object
        case .first:
            var array = try #require(payload as? [Any])
            array[0] = try Self.editing(try #require(array.first), at: rest, edit)
            return array
        }
    }
}
