import Foundation
import LiveActivitiesCore
import Testing

/// The door's pure decision: which contracts a push is held to, its dates, and each policy.
@Suite struct ContractFactsCheckTests {
    static func contract(_ version: Int, phases: [String]) throws -> AttributesContract {
        let cases = phases.map { "\"\($0)\"" }.joined(separator: ",")
        let json = #"""
            {"content_state":{"type":"object","required":["phase"],"properties":{
               "phase":{"type":"string","enum":[\#(cases)]},"endsAt":{"type":"number","x-swift-type":"Date"}}},
             "attributes":{"type":"object","required":["team"],"properties":{"team":{"type":"string"}}}}
            """#
        return try AttributesContract(
            attributesType: "Match", version: version,
            document: try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)))
    }

    static let v1 = try! contract(1, phases: ["first", "second"])
    static let v2 = try! contract(2, phases: ["first", "second", "extra"])

    static func update(_ state: [String: JSONValue]) -> LiveActivityNotification {
        LiveActivityNotification(event: .update, name: "match", contentState: state)
    }

    func facts(_ policy: ContractPolicy = .enforce, live: [Int]) -> ContractFacts {
        ContractFacts(
            policy: policy, live: live.map { LiveContract(attributesType: "Match", version: $0) },
            contracts: [Self.v1, Self.v2])
    }

    @Test func heldToEveryLiveVersionAndTheNewestWhereAVersionIsUnknown() throws {
        let extra = Self.update(["phase": .string("extra")])
        #expect(throws: ValidationError(path: "n.content_state.phase", rule: "must be one of first, second (Match v1)"))
        {
            try self.facts(live: [1, 2]).check(extra, path: "n")
        }
        #expect(try self.facts(live: [2]).check(extra, path: "n").report?.checked == ["Match v2"])
        // Devices that reported no version (0), or one never uploaded (7), are held to the newest.
        #expect(try self.facts(live: [0]).check(extra, path: "n").report?.checked == ["Match v2"])
        #expect(
            try self.facts(live: [1, 7]).check(Self.update(["phase": .string("first")]), path: "n").report?.checked
                == ["Match v1", "Match v2"])
        // Nobody tracks the name yet: the newest.
        #expect(try self.facts(live: []).check(extra, path: "n").report == nil, "an update to nobody has no type")
    }

    @Test func datesAreConvertedOnceAndReported() throws {
        let unix: Int64 = 1_800_000_000
        let (sent, report) = try self.facts(live: [1, 2]).check(
            Self.update(["phase": .string("first"), "endsAt": .integer(unix)]), path: "n")
        #expect(sent.contentState?["endsAt"] == .integer(unix - 978_307_200))
        #expect(report?.converted == [.init(path: "n.content_state.endsAt", given: .unixSeconds, value: 821_692_800)])
        let (iso, _) = try self.facts(live: [1]).check(
            Self.update(["phase": .string("first"), "endsAt": .string("2027-01-01T00:00:00Z")]), path: "n")
        #expect(iso.contentState?["endsAt"] == .integer(820_454_400))
        // Already seconds since 2001: left as they are.
        let (kept, keptReport) = try self.facts(live: [1]).check(
            Self.update(["phase": .string("first"), "endsAt": .integer(820_454_400)]), path: "n")
        #expect(kept.contentState?["endsAt"] == .integer(820_454_400) && keptReport?.converted == [])
        #expect(
            throws: ValidationError(
                path: "n.content_state.endsAt",
                rule: "must be a date in seconds; this looks like milliseconds (Match v1)")
        ) {
            try self.facts(live: [1]).check(
                Self.update(["phase": .string("first"), "endsAt": .integer(1_800_000_000_000)]), path: "n")
        }
    }

    @Test func policies() throws {
        let bad = Self.update(["phase": .string("penalties"), "endsAt": .integer(1_800_000_000)])
        let (sent, report) = try self.facts(.dryRun, live: [1]).check(bad, path: "n")
        #expect(sent == bad, "a dry run changes nothing")
        #expect(report?.wouldRefuse?.path == "n.content_state.phase")
        #expect(try self.facts(.off, live: [1]).check(bad, path: "n").report == nil)
        let start = LiveActivityNotification(
            event: .start, name: "m", attributesType: "Chest", attributes: [:], contentState: [:],
            alert: .init(title: "t", body: "b"))
        #expect(try self.facts(live: []).check(start, path: "n").report == nil, "no contract for Chest: passes")
        #expect(
            throws: ValidationError(
                path: "n.attributes_type", rule: "targets Chest, which has no contract (contract_policy required)")
        ) {
            try self.facts(.required, live: []).check(start, path: "n")
        }
    }

    @Test func documentsOutsideTheSubsetAreRefusedByPath() throws {
        func refusal(_ json: String) -> ValidationError? {
            do {
                _ = try AttributesContract(
                    attributesType: "T", version: 1,
                    document: try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)))
                return nil
            } catch let error as ValidationError {
                return error
            } catch {
                return ValidationError(path: "?", rule: "\(error)")
            }
        }
        let attributes = #""attributes":{"type":"object"}"#
        #expect(
            refusal(#"{"content_state":{"type":"object","properties":{"a":{"$ref":"x"}}},\#(attributes)}"#)?.path
                == "content_state.properties.a.$ref")
        #expect(
            refusal(#"{"content_state":{"type":"object","required":["a"]},\#(attributes)}"#)?.path
                == "content_state.required[0]")
        #expect(
            refusal(#"{"content_state":{"type":"array","items":{"type":"string"}},\#(attributes)}"#)?.path
                == "content_state.type")
        #expect(
            refusal(#"{"content_state":{"type":"string","minimum":1},\#(attributes)}"#)?.path == "content_state.minimum"
        )
        #expect(refusal(#"{"content_state":{"type":"object"}}"#)?.path == "attributes")
        #expect(refusal(#"{"content_state":{"type":"object"},\#(attributes)}"#) == nil)
    }
}
