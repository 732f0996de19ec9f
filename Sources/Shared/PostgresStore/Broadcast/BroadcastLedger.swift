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
            """
            WITH p AS (SELECT seq, broadcast_status, state FROM pushes WHERE id = \(pushID) AND app_id = \(appID)),
            c AS (
                UPDATE broadcast_channels c
                SET sending_seq = p.seq, sending_until = now() + \(lease)::interval, last_push_at = now()
                FROM p
                WHERE c.app_id = \(appID) AND c.channel_id = \(channelID)
                  AND p.broadcast_status IS NULL AND p.state = 'queued'
                  AND (c.sending_until IS NULL OR c.sending_until < now() OR c.sending_seq = p.seq)
                  AND coalesce(c.last_sent_seq, 0) < p.seq
                RETURNING 1
            )
            SELECT p.seq, (p.broadcast_status IS NOT NULL OR p.state <> 'queued'), (SELECT count(*) FROM c),
                   (SELECT coalesce(b.last_sent_seq, 0) >= p.seq FROM broadcast_channels b
                    WHERE b.app_id = \(appID) AND b.channel_id = \(channelID))
            FROM p
            """, logger: self.logger)
        for try await (seq, finished, claimed, superseded) in rows.decode((Int64, Bool, Int64, Bool?).self) {
            if finished { return (.finished, seq) }
            if claimed > 0 { return (.claimed, seq) }
            guard let superseded else { return (.channelGone, seq) }
            return (superseded ? .superseded : .busy, seq)
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
        try await self.database.client.query(
            """
            WITH released AS (
                UPDATE broadcast_channels
                SET last_sent_seq = CASE WHEN \(accepted) THEN greatest(coalesce(last_sent_seq, 0), \(seq))
                                         ELSE last_sent_seq END,
                    sending_seq = NULL, sending_until = NULL
                WHERE app_id = \(appID) AND channel_id = \(channelID) AND sending_seq = \(seq)
            )
            UPDATE pushes
            SET broadcast_status = \(status.map(Int32.init)), broadcast_reason = \(reason), apns_unique_id = \(uniqueID),
                broadcast_sent_at = coalesce(\(sentAt), now()), started_at = coalesce(started_at, now()),
                state = CASE WHEN delivery = 'broadcast' THEN (CASE WHEN \(ended) THEN 'done' ELSE 'failed' END)
                             ELSE state END,
                failure_reason = CASE WHEN delivery = 'broadcast' AND NOT \(ended) THEN \(reason)
                                      ELSE failure_reason END,
                finished_at = CASE WHEN delivery = 'broadcast' THEN now() ELSE finished_at END
            WHERE id = \(pushID) AND app_id = \(appID)
            """, logger: self.logger)
    }
}
