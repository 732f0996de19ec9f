import Testing

@testable import APNsTransport

/// The id table against `Dictionary` as the oracle, through the id patterns a connection makes: ascending odd
/// stream ids finishing out of order, a few stragglers, and growth.
@Suite struct IDTableTests {
    @Test func behavesAsADictionaryUnderRandomInsertsAndRemovals() {
        var generator = SplitMix(seed: 42)
        var table = IDTable<Int>(capacity: 4)
        var oracle: [Int: Int] = [:]
        var next = 1
        for step in 0..<200_000 {
            let roll = generator.next() % 100
            if roll < 45 || oracle.isEmpty {
                table[next] = step
                oracle[next] = step
                next += 2
            } else if roll < 50, let id = oracle.keys.randomElement(using: &generator) {
                table[id] = -step  // overwrite
                oracle[id] = -step
            } else if roll < 52 {
                let absent = next + 2 * Int(generator.next() % 50)
                #expect(table[absent] == nil)
                #expect(table.removeValue(for: absent) == nil)
            } else {
                // Mostly the oldest ids finish (a window of streams in flight), some much later.
                let keys = oracle.keys.sorted()
                let pick = roll < 95 ? keys[Int(generator.next() % UInt64(min(keys.count, 8)))] : keys.last!
                #expect(table.removeValue(for: pick) == oracle.removeValue(forKey: pick))
            }
            if step % 997 == 0 {
                #expect(table.count == oracle.count)
                #expect(Set(table.ids) == Set(oracle.keys))
                for (id, value) in oracle { #expect(table[id] == value) }
            }
        }
        for id in oracle.keys { #expect(table.removeValue(for: id) == oracle[id]) }
        #expect(table.isEmpty && table.ids.isEmpty)
    }

    @Test func idsThatCollideStayFindableAfterRemovalsInTheMiddleOfARun() {
        var table = IDTable<String>(capacity: 4)
        // Multiples of a large power of two share their low bits: a stress for the probe runs and the back shift.
        let ids = (0..<40).map { $0 << 20 }
        for id in ids { table[id] = "v\(id)" }
        for id in ids where (id >> 20) % 3 == 1 { #expect(table.removeValue(for: id) == "v\(id)") }
        for id in ids { #expect(table[id] == ((id >> 20) % 3 == 1 ? nil : "v\(id)")) }
        #expect(table.count == ids.count - ids.filter { ($0 >> 20) % 3 == 1 }.count)
    }
}

/// A seeded generator: the same run every time.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { self.state = seed }
    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
