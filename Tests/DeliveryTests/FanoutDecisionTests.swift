import Foundation
import LiveActivitiesCore
import Testing

@testable import Delivery

/// What a fan-out does with a push after its first chunk (`FanoutDecision`).
@Suite struct FanoutDecisionTests {
    /// `count` channel ids whose first 8 bytes are `step`, 2 × `step`, ... (in channel order).
    static func ids(_ count: Int, step: UInt64) -> [UUID] {
        (1...count).map { index in
            var bytes = [UInt8](repeating: 0x11, count: 16)
            withUnsafeBytes(of: (UInt64(index) * step).bigEndian) { bytes.replaceSubrange(0..<8, with: $0) }
            return UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
        }
    }

    @Test func noTargetsAreRecordedEmpty() {
        #expect(FanoutDecision.after(first: [], superseding: nil, chunkSize: 10, batchSize: 100) == .recordEmpty)
        #expect(FanoutDecision.after(first: [], superseding: 0, chunkSize: 10, batchSize: 100) == .recordEmpty)
    }

    @Test func upToAChunkIsSentHereWhenClaimed() {
        let one = Self.ids(1, step: 1 << 40)
        let full = Self.ids(10, step: 1 << 40)
        #expect(
            FanoutDecision.after(first: one, superseding: 2, chunkSize: 10, batchSize: 100) == .sendHere(superseding: 2)
        )
        #expect(
            FanoutDecision.after(first: full, superseding: 0, chunkSize: 10, batchSize: 100)
                == .sendHere(superseding: 0))
        #expect(FanoutDecision.after(first: full, superseding: nil, chunkSize: 10, batchSize: 100) == .notClaimed)
    }

    @Test func moreThanAChunkGoesInBatchesCutFromAnEvenSample() throws {
        // 1,001 ids evenly spread over the first 1/16 of the id space: about 16,000 targets, 160 batches of 100.
        let sample = Self.ids(1_001, step: UInt64.max / 16 / 1_001)
        let decision = FanoutDecision.after(first: sample, superseding: nil, chunkSize: 1_000, batchSize: 100)
        guard case .batches(let plan) = decision else {
            Issue.record("expected batches cut from the sample, got \(decision)")
            return
        }
        #expect(plan.estimated)
        #expect(plan.sizes.count > 100 && plan.sizes.count < 200)
        #expect(plan == BatchPlan.estimated(sample: sample, batchSize: 100))
    }

    @Test func anUnevenSampleIsCounted() {
        // 1,000 ids crowded at the start of the id space, then one far beyond: no even spread to cut from.
        let crowded = Self.ids(1_000, step: 1 << 20)
        let sample = crowded + Self.ids(1, step: UInt64.max / 2)
        #expect(
            FanoutDecision.after(first: sample, superseding: nil, chunkSize: 1_000, batchSize: 100)
                == .countedBatches(sampled: 1_001, reach: sample[1_000]))
    }
}
