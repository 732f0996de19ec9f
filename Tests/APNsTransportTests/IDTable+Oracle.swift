import TestSupport
import Testing

@testable import APNsTransport

/// The id table against `Dictionary` as the oracle, through the id patterns a connection makes (ascending odd
/// stream ids finishing out of order, a few stragglers, and growth) and through ids in any order.
@Suite struct IDTableTests {
    /// Stride 2 as a connection's stream ids have it; stride 1 with the same odd ids puts every home on an odd slot.
    @Test(arguments: [1, 2]) func behavesAsADictionaryUnderRandomInsertsAndRemovals(stride: Int) {
        var generator = SplitMix(seed: 42)
        var table = IDTable<Int>(capacity: 4, stride: stride)
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

    /// Any ids in any order stay a map: runs where later ids land nearer their homes than earlier ones are what the
    /// Robin Hood order (and the lookups that stop early by it) must get right.
    @Test(arguments: [1, 2]) func behavesAsADictionaryForIdsInAnyOrder(stride: Int) {
        var generator = SplitMix(seed: 7)
        var table = IDTable<Int>(capacity: 4, stride: stride)
        var oracle: [Int: Int] = [:]
        for step in 0..<30_000 {
            let id = Int(generator.next() % 300)
            if generator.next() % 3 == 0 {
                #expect(table.removeValue(for: id) == oracle.removeValue(forKey: id))
            } else {
                table[id] = step
                oracle[id] = step
            }
            if step % 499 == 0 {
                #expect(table.count == oracle.count)
                for probe in 0..<300 { #expect(table[probe] == oracle[probe]) }
            }
        }
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
