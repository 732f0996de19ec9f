import Foundation
import PostgresDatabase
import PostgresNIO

/// Reads a batch for a run of its job and, while it is queued, gives it a new `runner` (`DeliveryLedger.claimBatch`),
/// `$3`, made by the caller: Citus takes no volatile function (`gen_random_uuid()`) in an update.
struct ClaimBatchStatement: NamedStatement {
    static let name = "lagw_claim_batch_v3"
    static let sql = """
        UPDATE push_batches SET runner = CASE WHEN state = 'queued' THEN $3::uuid ELSE runner END
        WHERE push_id = $1::uuid AND app_id = $4::int8 AND seq = $2::int4
        RETURNING lower_channel, upper_channel, cursor_channel, state, sent_by_fanout, runner
        """

    struct Row {
        var lower: UUID?
        var upper: UUID?
        var cursor: UUID?
        var state: BatchState
        var sentByFanout: Bool
        var runner: UUID?
    }

    static func prepared(pushID: UUID, appID: Int64, seq: Int32) -> PreparedNamedStatement<Self> {
        var binds = PostgresBindings(capacity: 4)
        binds.append(pushID)
        binds.append(seq)
        binds.append(UUID())
        binds.append(appID)
        return Self.prepared(bindings: binds)
    }

    static func decode(_ row: PostgresRow) throws -> Row {
        let (lower, upper, cursor, state, sentByFanout, runner) = try row.decode(
            (UUID?, UUID?, UUID?, BatchState, Bool, UUID?).self)
        return Row(
            lower: lower, upper: upper, cursor: cursor, state: state, sentByFanout: sentByFanout, runner: runner)
    }
}
