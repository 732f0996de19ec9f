import Foundation
import LiveActivitiesContracts
import Testing

@Suite struct ContractMakerSchemaTests {
    /// The whole document, byte for byte: every mapping of the contract language at once (sized integers, Float,
    /// Decimal, Date, URL, UUID, Data, String and Int enums, optional properties, optional elements, nested structs,
    /// arrays of arrays, sets, dictionaries).
    @Test func matchDocument() throws {
        let contract = try ActivityContract.make(
            contentState: ContractMakerMatch.ContentState.self, attributes: ContractMakerMatch.self)
        // Laid out for reading; no string in it has a space, so dropping whitespace gives the compact document.
        let expected = """
            {
                "attributes": {
                    "properties": {
                        "away": {
                            "properties": {"crest": {"format": "uri", "type": "string"}, "name": {"type": "string"}},
                            "required": ["name"],
                            "type": "object"
                        },
                        "home": {
                            "properties": {"crest": {"format": "uri", "type": "string"}, "name": {"type": "string"}},
                            "required": ["name"],
                            "type": "object"
                        },
                        "kickoff": {"type": "number", "x-swift-type": "Date"},
                        "labels": {
                            "additionalProperties": {"items": {"type": "string"}, "type": "array"},
                            "type": "object"
                        },
                        "matchID": {"format": "uuid", "type": "string"},
                        "venue": {"format": "uri", "type": "string"}
                    },
                    "required": ["away", "home", "kickoff", "labels", "matchID", "venue"],
                    "type": "object"
                },
                "content_state": {
                    "properties": {
                        "attendance": {"minimum": 0, "type": "integer"},
                        "away_score": {"maximum": 32767, "minimum": -32768, "type": "integer"},
                        "counter": {"maximum": 4294967295, "minimum": 0, "type": "integer"},
                        "crest": {"format": "byte", "type": "string"},
                        "delta": {"maximum": 2147483647, "minimum": -2147483648, "type": "integer"},
                        "expected": {"type": "number"},
                        "flags": {"items": {"type": "string"}, "type": "array"},
                        "followers": {"type": "integer"},
                        "goals": {
                            "items": {
                                "properties": {
                                    "minute": {"type": "integer"},
                                    "ownGoal": {"type": "boolean"},
                                    "player": {"type": "string"}
                                },
                                "required": ["minute", "player"],
                                "type": "object"
                            },
                            "type": "array"
                        },
                        "home_score": {"maximum": 255, "minimum": 0, "type": "integer"},
                        "is_live": {"type": "boolean"},
                        "kickoff": {"type": "number", "x-swift-type": "Date"},
                        "last_goal": {
                            "properties": {
                                "minute": {"type": "integer"},
                                "ownGoal": {"type": "boolean"},
                                "player": {"type": "string"}
                            },
                            "required": ["minute", "player"],
                            "type": "object"
                        },
                        "minute": {"type": "integer"},
                        "note": {"type": "string"},
                        "odds": {"additionalProperties": {"type": "number"}, "type": "object"},
                        "offset": {"maximum": 9223372036854775807, "minimum": -9223372036854775808, "type": "integer"},
                        "period": {"enum": [1, 2, 3], "type": "integer"},
                        "phase": {"enum": ["pregame", "in_play", "final"], "type": "string"},
                        "possession": {
                            "maximum": 3.4028234663852886e+38,
                            "minimum": -3.4028234663852886e+38,
                            "type": "number"
                        },
                        "ratio": {"type": "number"},
                        "rounds": {
                            "items": {"items": {"maximum": 65535, "minimum": 0, "type": "integer"}, "type": "array"},
                            "type": "array"
                        },
                        "sequence": {"maximum": 18446744073709551615, "minimum": 0, "type": "integer"},
                        "shots_per_period": {"items": {"type": ["integer", "null"]}, "type": "array"},
                        "tilt": {"maximum": 127, "minimum": -128, "type": "integer"}
                    },
                    "required": ["attendance", "away_score", "counter", "delta", "expected", "flags", "followers", "goals", "home_score", "is_live", "kickoff", "odds", "offset", "period", "phase", "possession", "ratio", "rounds", "sequence", "shots_per_period", "tilt"],
                    "type": "object"
                }
            }
            """
        let compact = String(expected.filter { !$0.isWhitespace })
        #expect(String(decoding: contract.jsonData(), as: UTF8.self) == compact)
    }

    @Test func optionalPropertiesAreLeftOutOfRequired() throws {
        let schema = try ActivityContract.schema(of: ContractMakerMatch.Goal.self)
        #expect(
            schema
                == .object(
                    properties: [
                        "player": .string(format: nil), "minute": .integer(minimum: nil, maximum: nil),
                        "ownGoal": .boolean,
                    ],
                    required: ["minute", "player"]))
    }

    /// A struct whose `init(from:)` is its own, without branching: described by what it decodes.
    @Test func customInitWithoutBranchingIsDescribed() throws {
        let schema = try ActivityContract.schema(of: ContractMakerShapes.Wrapped.self)
        #expect(
            schema
                == .object(
                    properties: [
                        "score": .integer(minimum: nil, maximum: nil),
                        "inner": .object(properties: ["at": .date], required: ["at"]),
                        "pairs": .array(items: .nullable(.string(format: nil))),
                    ],
                    required: ["inner", "score"]))
    }
}
