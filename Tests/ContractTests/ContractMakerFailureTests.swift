import Foundation
import LiveActivitiesContracts
import Testing

/// What the contract language cannot describe is refused with the coding path and what to do.
@Suite struct ContractMakerFailureTests {
    private func failure<T: Decodable>(_ type: T.Type) throws -> ContractError {
        try #require(throws: ContractError.self) { try ActivityContract.schema(of: T.self, root: "content_state") }
    }

    @Test func enumWithAssociatedValues() throws {
        let error = try self.failure(ContractMakerShapes.WithOutcome.self)
        #expect(error.path == "content_state.outcome")
        #expect(error.reason.contains("enum with associated values"))
    }

    @Test func enumThatIsNotCaseIterable() throws {
        let error = try self.failure(ContractMakerShapes.WithScore.self)
        #expect(error.path == "content_state.score.phase")
        #expect(error.reason.contains("make Phase CaseIterable"))
        #expect(error.description.hasPrefix("content_state.score.phase: Phase is an enum that is not CaseIterable"))
    }

    @Test func initBranchingOnAValue() throws {
        let error = try self.failure(ContractMakerShapes.WithClocks.self)
        #expect(error.path == "content_state.clocks[]")
        #expect(error.reason.contains("Clock.init(from:) threw on stand-in values"))
    }

    @Test func initBranchingOnAKey() throws {
        let error = try self.failure(ContractMakerShapes.Legacy.self)
        #expect(error.path == "content_state.points")
        #expect(error.reason.contains("whether a key is present (contains)"))
    }

    @Test func recursion() throws {
        let error = try self.failure(ContractMakerShapes.Thread.self)
        #expect(error.path == "content_state.root.replies[]")
        #expect(error.reason.hasPrefix("Comment contains itself (directly, or through an optional or an array)"))
    }

    @Test func nestingPastTheBound() throws {
        let error = try self.failure(ContractMakerShapes.WithDeep.self)
        #expect(error.path.hasPrefix("content_state.deep.next.next.next"))
        #expect(error.reason.hasPrefix("a type nested deeper than 32 levels contains itself"))
    }

    /// Its stand-in raw value (0) is one of its cases: refused all the same, not described as any integer.
    @Test func enumThatIsNotCaseIterableTakingTheStandIn() throws {
        let error = try self.failure(ContractMakerShapes.WithLevel.self)
        #expect(error.path == "content_state.level")
        #expect(error.reason.contains("make Level CaseIterable"))
    }

    /// A struct wrapping a raw value takes any value of it: described by that value.
    @Test func rawValueStructIsItsRawValue() throws {
        #expect(
            try ActivityContract.schema(of: ContractMakerShapes.WithToken.self)
                == .object(properties: ["token": .string(format: nil)], required: ["token"]))
    }

    @Test func dictionaryWithKeysOtherThanStrings() throws {
        let error = try self.failure(ContractMakerShapes.ByID.self)
        #expect(error.path == "content_state.scores")
        #expect(error.reason.contains("use [String: Int]"))
    }

    @Test func enumWithDoubleRawValues() throws {
        let error = try self.failure(ContractMakerShapes.WithWeight.self)
        #expect(error.path == "content_state.weight")
        #expect(error.reason.contains("String and Int enums"))
    }

    @Test func rootThatIsNotAnObject() throws {
        let error = try #require(throws: ContractError.self) {
            try ActivityContract.make(contentState: [Int].self, attributes: ContractMakerMatch.self)
        }
        #expect(error.path == "content_state")
        #expect(error.reason.contains("does not decode from a JSON object"))
    }
}
