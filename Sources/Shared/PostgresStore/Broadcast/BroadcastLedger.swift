import Foundation
import Logging
import PostgresNIO

/// The rows behind a push's broadcast. Broadcasts to one channel go out one at a time, in the order their pushes
/// were accepted (`pushes.seq`): the sending push holds the channel row's lease (`sending_seq`, `sending_until`),
/// and a push older than the last one sent is never sent. Apple applies an equal timestamp, so without this two
/// broadcasts of one second could reach devices in either order.
public struct BroadcastLedger: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    private var logger: Logger { self.database.logger }

    /// The `broadcast_reason` of a broadcast not sent because a push accepted later was broadcast first.
    public static let supersededReason = "superseded"

    /// How long a claim holds a channel without an answer recorded: past it, a later push may send.
    public static let lease: Duration = .seconds(15)

    /// Takes the channel's lease for the push (one statement). Answers the push's acceptance order too.
    public func claim(pushID: UUID, appID: Int64, channelID: String) async throws -> (BroadcastClaim, seq: Int64) {
        let lease = "\(Int(Self.lease.components.seconds)) seconds"
        let rows = try await self.database.client.query(
            BroadcastStatements.Claim.query(pushID, appID, channelID, lease), logger: self.logger)
        if let row = try rows.elements.first.map(BroadcastStatements.Claim.Row.init) {
            if row.finished { return (.finished, row.seq) }
            if row.claimed { return (.claimed, row.seq) }
            guard let superseded = row.superseded else { return (.channelGone, row.seq) }
            return (superseded ? .superseded : .busy, row.seq)
        }
        return (.finished, 0)
    }

    /// Apple's answer (status nil: none came; `reason` says why), the channel's lease released. `sentAt`: when the
    /// (last) request went out, which `push_report.seconds_to_broadcast` measures from the POST. A push that goes by
    /// broadcast alone ends here: done when Apple accepted it, failed otherwise.
    public func record(
        pushID: UUID, appID: Int64, channelID: String, seq: Int64, status: Int?, reason: String?, uniqueID: String?,
        sentAt: Date? = nil
    ) async throws {
        let accepted = status == 200
        // A broadcast left out because a newer one went first did what it should: the push is done, not failed.
        let ended = accepted || reason == Self.supersededReason
        var bindings = PostgresBindings(capacity: 10)
        bindings.append(pushID)
        bindings.append(appID)
        bindings.append(channelID)
        bindings.append(seq)
        bindings.append(accepted)
        bindings.append(status.map(Int32.init))
        bindings.append(reason)
        bindings.append(uniqueID)
        bindings.append(sentAt)
        bindings.append(ended)
        try await self.database.client.query(BroadcastStatements.Record.bound(bindings), logger: self.logger)
    }
}
