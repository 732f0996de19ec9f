import Foundation
import LiveActivitiesCore
import PostgresStore

/// The pushes that supersede the one a batch sends, as far as the batch has honoured them: their audiences, read
/// again whenever the batch's superseding count (`push_batches.superseded_gen`) has grown.
struct Superseders {
    private var honoured = 0
    private var audiences: [Audience] = []

    /// The channels among `targets` that a superseding push reaches. No query while nothing superseded the push.
    mutating func reached(_ targets: [PushTargets.Target], gen: Int, push: PushForDelivery, ledger: DeliveryLedger)
        async throws -> Set<UUID>
    {
        if gen > self.honoured {
            self.audiences = try await ledger.superseders(of: push.id)
            self.honoured = gen
        }
        guard !self.audiences.isEmpty else { return [] }
        return try await ledger.channels(targets.map(\.channelID), reachedBy: self.audiences, appID: push.appID)
    }
}
