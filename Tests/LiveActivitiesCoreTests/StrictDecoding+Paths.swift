import Foundation
import LiveActivitiesCore
import Testing

private struct Inner: Decodable {
    var tag: String
    enum CodingKeys: String, CodingKey, CaseIterable { case tag }
    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        self.tag = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .tag)
    }
}

private struct Outer: Decodable {
    var items: [Inner]
    var count: Int
}

@Suite struct StrictDecodingTests {
    func error(_ json: String) -> ValidationError? {
        do {
            _ = try JSONDecoder().decode(Outer.self, from: Data(json.utf8))
            return nil
        } catch let error as DecodingError {
            return ValidationError(decoding: error)
        } catch {
            return nil
        }
    }

    @Test func unknownFieldsAreNamedByPath() {
        #expect(
            error(#"{"items":[{"tag":"a"},{"tag":"b","x":1}],"count":1}"#)
                == ValidationError(path: "items[1].x", rule: "is not a known field"))
    }

    @Test func missingAndMistypedFields() {
        #expect(error(#"{"items":[]}"#) == ValidationError(path: "count", rule: "is required"))
        #expect(
            error(#"{"items":[{"tag":5}],"count":1}"#)
                == ValidationError(path: "items[0].tag", rule: "must be a string"))
        #expect(error(#"{"items":[],"count":"1"}"#) == ValidationError(path: "count", rule: "must be an integer"))
        #expect(error("{oops")?.path == "")
    }
}
