import Foundation
import Testing

@testable import Simulator

@Suite struct MessageIDGeneratorTests {
    /// A fixed seed, so a failure can be reproduced.
    struct Seed: RandomNumberGenerator {
        var value: UInt64
        mutating func next() -> UInt64 { self.value }
    }

    @Test func idsAreLowerCaseVersion4UUIDsAndDistinct() {
        var seed = Seed(value: 42)
        var generator = MessageIDGenerator(seed: &seed)
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let id = generator.next()
            let parsed = UUID(uuidString: id)
            #expect(parsed != nil, "\(id) is not a UUID")
            #expect(id == id.lowercased())
            #expect(id.utf8.count == 36)
            let bytes = parsed.map { withUnsafeBytes(of: $0.uuid) { Array($0) } } ?? []
            #expect(bytes.count == 16 && bytes[6] >> 4 == 4, "version of \(id)")
            #expect(bytes.count == 16 && bytes[8] >> 6 == 0b10, "variant of \(id)")
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
    }

    @Test func generatorsSeededDifferentlyDiffer() {
        var a = MessageIDGenerator()
        var b = MessageIDGenerator()
        #expect(a.next() != b.next())
    }
}
