import Foundation

/// Types for the maker's tests that are not an app's usual content state: custom `init(from:)`, and what the
/// contract language cannot describe.
enum ContractMakerShapes {
    /// Its own `init(from:)`, without branching on values: a nested container, an unkeyed one with optional elements.
    struct Wrapped: Decodable {
        var score: Int
        var at: Date
        var pairs: [String?]

        enum Keys: String, CodingKey { case score, inner, pairs, at }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            self.score = try container.decode(Int.self, forKey: .score)
            let inner = try container.nestedContainer(keyedBy: Keys.self, forKey: .inner)
            self.at = try inner.decode(Date.self, forKey: .at)
            self.pairs = try container.decodeIfPresent([String?].self, forKey: .pairs) ?? []
        }
    }

    /// An enum with associated values (Swift's synthesized Codable reads the payload's keys).
    enum Outcome: Codable {
        case win(by: Int)
        case draw
    }
    struct WithOutcome: Codable { var outcome: Outcome }

    /// A String enum that is not CaseIterable: its cases cannot be listed.
    enum Phase: String, Codable { case pregame, live }
    struct Score: Codable { var phase: Phase }
    struct WithScore: Codable { var score: Score }

    /// Not CaseIterable, and 0 (the walk's stand-in Int) is one of its raw values.
    enum Level: Int, Codable { case zero, one }
    struct WithLevel: Codable { var level: Level }

    /// A struct wrapping a raw value: any string decodes.
    struct Token: RawRepresentable, Codable { var rawValue: String }
    struct WithToken: Codable { var token: Token }

    /// A custom `init(from:)` that branches on a decoded value.
    struct Clock: Decodable {
        var seconds: Int
        enum Keys: String, CodingKey { case unit, value }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            switch try container.decode(String.self, forKey: .unit) {
            case "s": self.seconds = try container.decode(Int.self, forKey: .value)
            case "min": self.seconds = try container.decode(Int.self, forKey: .value) * 60
            default:
                throw DecodingError.dataCorruptedError(forKey: .unit, in: container, debugDescription: "unknown unit")
            }
        }
    }
    struct WithClocks: Decodable { var clocks: [Clock] }

    /// A custom `init(from:)` that branches on whether a key is present.
    struct Legacy: Decodable {
        var points: Int
        enum Keys: String, CodingKey { case points, score }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            if container.contains(.points) {
                self.points = try container.decode(Int.self, forKey: .points)
            } else {
                self.points = try container.decode(Int.self, forKey: .score)
            }
        }
    }

    /// A type that contains itself.
    struct Comment: Codable {
        var text: String
        var replies: [Comment]
    }
    struct Thread: Codable { var root: Comment }

    /// Recursion through a different type at each level (`Deep<Int>`, `Deep<[Int]>`, ...): only a bound stops it.
    final class Deep<Value: Codable>: Codable {
        var value: Value
        var next: Deep<[Value]>?
    }
    struct WithDeep: Codable { var deep: Deep<Int> }

    /// Keys that JSONEncoder writes as an array of alternating keys and values.
    struct ByID: Codable { var scores: [UUID: Int] }

    /// Raw values the contract language has no enum of.
    enum Weight: Double, Codable, CaseIterable {
        case light = 0.5
        case heavy = 2
    }
    struct WithWeight: Codable { var weight: Weight }
}
