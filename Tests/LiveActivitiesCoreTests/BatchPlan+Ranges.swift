import Foundation
import Testing

@testable import LiveActivitiesCore

@Suite struct BatchPlanTests {
    static func id(_ high: UInt64) -> UUID { UUID(high64: high) }

    @Test func theFirstTargetsReachTellHowManyRangesToCut() {
        // 1,000 targets reached a quarter of the id space: about 4,000 in all, 4 ranges of 1,000.
        let thresholds = BatchPlan.uniformThresholds(sampled: 1000, reach: Self.id(UInt64.max / 4), batchSize: 1000)
        #expect(thresholds.count == 3)
        #expect(thresholds.map(\.high64) == [1, 2, 3].map { UInt64.max / 4 * $0 })
        #expect(thresholds == thresholds.sorted { $0.uuidString < $1.uuidString }, "ids sort as their text does")
        #expect(BatchPlan.uniformThresholds(sampled: 10, reach: Self.id(UInt64.max), batchSize: 1000).isEmpty)
        #expect(BatchPlan.uniformThresholds(sampled: 1000, reach: Self.id(0), batchSize: 1000).isEmpty)
        #expect(BatchPlan.uniformThresholds(sampled: 1000, reach: Self.id(1), batchSize: 1, maxRanges: 50).count == 49)
    }

    @Test func anIDRoundTripsThroughItsHigh64Bits() throws {
        let uuid = try #require(UUID(uuidString: "01234567-89AB-CDEF-0000-000000000000"))
        #expect(uuid.high64 == 0x0123_4567_89AB_CDEF)
        #expect(UUID(high64: 0x0123_4567_89AB_CDEF) == uuid)
    }

    @Test func emptyRangesJoinTheBatchAfterThem() {
        let t = (1...4).map { Self.id(UInt64($0) << 60) }
        // Ranges 0 and 3 are empty: range 0 joins range 1; range 3 joins range 4.
        let plan = BatchPlan.merging(thresholds: t, counts: [1: 5, 2: 7, 4: 2])
        #expect(plan == BatchPlan(boundaries: [t[1], t[2]], sizes: [5, 7, 2]))
        #expect(plan.total == 14)
    }

    @Test func emptyRangesAtTheEndJoinTheLastBatch() {
        let t = (1...3).map { Self.id(UInt64($0) << 60) }
        #expect(
            BatchPlan.merging(thresholds: t, counts: [0: 3, 1: 4]) == BatchPlan(boundaries: [t[0]], sizes: [3, 4]))
        #expect(BatchPlan.merging(thresholds: t, counts: [:]) == .empty)
        #expect(BatchPlan.merging(thresholds: [], counts: [0: 9]) == BatchPlan(boundaries: [], sizes: [9]))
    }

    @Test func randomIdsAreNotCountedButEstimated() {
        // 1,000 random ids (SplitMix64, seeded: the same every run) in the first thousandth of the id space.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let sample = (0..<1000).map { _ in next() % (UInt64.max / 1000) }.sorted().map(Self.id)
        let plan = try? #require(BatchPlan.estimated(sample: sample, batchSize: 10_000))
        #expect(plan?.estimated == true)
        #expect((100...101).contains(plan?.sizes.count ?? 0), "about a million targets: 100 batches of 10,000")
        #expect(Set(plan?.sizes ?? []).count == 1)
        #expect((990_000...1_010_000).contains(plan?.total ?? 0))
        #expect(plan?.boundaries == BatchPlan.uniformThresholds(sampled: 1000, reach: sample[999], batchSize: 10_000))
    }

    @Test func idsThatAreNotSpreadEvenlyOrTooFewAreCounted() {
        // Time-ordered ids: the first targets crowd the top tenth of the range they reach.
        let crowded = (0..<1000).map { Self.id(UInt64.max / 100 * 9 + UInt64($0) * (UInt64.max / 100_000)) }
        #expect(BatchPlan.estimated(sample: crowded, batchSize: 10_000) == nil)
        let even = (1...1000).map { Self.id(UInt64($0) * (UInt64.max / 1_000_000)) }
        #expect(BatchPlan.estimated(sample: even, batchSize: 10_000) != nil)
        #expect(BatchPlan.estimated(sample: Array(even.prefix(99)), batchSize: 10_000) == nil, "too few to tell")
        // Evenly spread but crowded near zero: an estimate beyond what the ranges can hold.
        let nearZero = (1...1000).map { Self.id(UInt64($0)) }
        #expect(BatchPlan.estimated(sample: nearZero, batchSize: 10_000) == nil)
    }
}
