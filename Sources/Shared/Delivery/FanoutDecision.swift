import Foundation
import LiveActivitiesCore

/// What a fan-out does with a push once it read the push's first chunk (`PushFanoutHandler`): one chunk sent right
/// there, or batches and how they are cut. Pure, so each way is tested without a database.
enum FanoutDecision: Equatable {
    /// No targets: the push is recorded done, with no batches.
    case recordEmpty
    /// The targets fit in one chunk and the first chunk's statement claimed the push: the chunk is sent here,
    /// honouring `superseding` pushes.
    case sendHere(superseding: Int)
    /// The targets fit in one chunk but the push was not claimed (another run recorded it): nothing to do.
    case notClaimed
    /// More targets than a chunk: batches cut from the first chunk's channel ids alone (random ids spread evenly).
    case batches(BatchPlan)
    /// More targets than a chunk, and the first chunk's ids cannot be cut from: the audience is counted per range
    /// (`PushTargets.batchPlan`), `sampled` targets reaching up to `reach`.
    case countedBatches(sampled: Int, reach: UUID)

    /// `first`: the first chunk's channel ids, in order (up to `chunkSize` + 1 were read); `superseding`: what the
    /// first chunk's statement answered, nil when it did not claim the push.
    static func after(first: [UUID], superseding: Int?, chunkSize: Int, batchSize: Int) -> FanoutDecision {
        guard let reach = first.last else { return .recordEmpty }
        if first.count <= chunkSize {
            return superseding.map { .sendHere(superseding: $0) } ?? .notClaimed
        }
        if let plan = BatchPlan.estimated(sample: first, batchSize: batchSize) { return .batches(plan) }
        return .countedBatches(sampled: first.count, reach: reach)
    }
}
