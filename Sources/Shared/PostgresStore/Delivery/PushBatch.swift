import Foundation
import LiveActivitiesCore
import Logging
import NIOCore
import PostgresNIO

/// One fan-out batch: channel ids in (lower, upper], resumed after `cursor`.
public struct PushBatch: Sendable {
    public var pushID: UUID
    public var seq: Int32
    public var lower: UUID?
    public var upper: UUID?
    public var cursor: UUID?
    public var state: BatchState
    public var sentByFanout: Bool
    /// This run's claim on the batch (`DeliveryLedger.claimBatch`): only its records count. Nil for a batch its fan-out
    /// job sends itself, which no other run has claimed.
    public var runner: UUID? = nil

    /// The one batch of a push that its fan-out job sends itself, as `firstChunk(of:limit:)` recorded it.
    public static func sentByFanout(pushID: UUID) -> PushBatch {
        PushBatch(
            pushID: pushID, seq: 0, lower: nil, upper: nil, cursor: nil, state: .queued, sentByFanout: true)
    }
}
