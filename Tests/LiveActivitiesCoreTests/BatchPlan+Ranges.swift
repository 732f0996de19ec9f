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
}
