import Foundation
import LiveActivitiesCore
import Logging
import PostgresStore

/// Runs supersession for a push's fan-out: reads the unfinished pushes of its name, lets `Supersession` decide, writes
/// that, and waits (`ChunksInFlightWait`) until the older pushes have no chunk in flight chosen before.
///
/// A push starting while an older one of the same name is unfinished appends itself to that push's `superseded_by`
/// and raises `superseded_gen` on its batches. Each batch declares, before it sends a chunk, how many superseding
/// pushes it has honoured (`sending_gen`, leased until `sending_until`). The newer push waits until no batch of the
/// older one is sending a chunk chosen before it was superseded; every chunk chosen after leaves out the targets a
/// superseding push reaches (`BatchSend`). The two writes meet on the batch row, so PostgreSQL orders them: either the
/// declaration saw the flag, or the newer push sees the declaration and waits for the chunk's record.
public struct PushSupersession: Sendable {
    let ledger: DeliveryLedger

    public init(ledger: DeliveryLedger) {
        self.ledger = ledger
    }

    /// Supersedes where the name has other unfinished pushes, then reads the push's first chunk (see
    /// `DeliveryLedger.firstChunk(of:limit:)`), for a push whose acceptance order is known. The first chunk's statement
    /// also reads those pushes and claims the push only when there are none: a name with nothing unfinished costs no
    /// statement of its own, and one with some costs none more than `supersede(for:logger:)` before the first chunk.
    public func firstChunk(of push: PushForDelivery, limit: Int, logger: Logger) async throws
        -> (targets: [PushTargets.Target], superseding: Int?)
    {
        switch try await self.ledger.firstChunk(of: push, limit: limit, unlessUnfinished: true) {
        case .read(let targets, let superseding): return (targets, superseding)
        case .unfinished(let unfinished): try await self.supersede(push, among: unfinished, logger: logger)
        case .unknown: try await self.supersede(for: push, logger: logger)
        }
        return try await self.ledger.firstChunk(of: push, limit: limit)
    }

    /// Called by a push's fan-out before it reads its targets: marks the unfinished pushes of its name that it
    /// supersedes, takes as its own superseders those that supersede it, and waits until the older pushes have no
    /// chunk in flight that was chosen before. One statement when the name has no other unfinished push, which also
    /// reads the push's own acceptance order (`seq`). Answers how many pushes it superseded.
    @discardableResult
    public func supersede(for push: PushForDelivery, logger: Logger) async throws -> (seq: Int64, superseded: Int) {
        let (seq, unfinished) = try await self.ledger.unfinished(sameNameAs: push, logger: logger)
        var push = push
        push.seq = seq
        return (seq, try await self.supersede(push, among: unfinished, logger: logger))
    }

    /// `supersede(for:logger:)` once the unfinished pushes of the name are known (`push.seq` too).
    @discardableResult
    func supersede(_ push: PushForDelivery, among unfinished: [DeliveryLedger.UnfinishedPush], logger: Logger)
        async throws -> Int
    {
        let decided = Supersession(push: push.order, event: push.targets.event, among: unfinished)
        guard !decided.isEmpty else { return 0 }
        try await self.ledger.markSuperseding(push, older: decided.older, newer: decided.newer, logger: logger)
        guard !decided.older.isEmpty else { return 0 }
        let started = ContinuousClock.now
        var wait = ChunksInFlightWait()
        while true {
            let inFlight = try await self.ledger.chunksInFlight(of: decided.older, appID: push.appID, logger: logger)
            switch wait.counted(inFlight, elapsed: ContinuousClock.now - started) {
            case .proceed:
                return decided.older.count
            case .pause(let pause):
                try await Task.sleep(for: pause)
            case .giveUp:
                logger.warning(
                    "chunks of superseded pushes still in flight after their lease",
                    metadata: ["pushes": "\(decided.older)"])
                return decided.older.count
            }
        }
    }
}
