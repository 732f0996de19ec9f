import Foundation
import PostgresDatabase
import PostgresNIO

/// A batch as it stands, without claiming it (`DeliveryLedger.batch`).
struct ReadBatchStatement: NamedStatement {
    static let name = "lagw_read_batch_v2"
    static let sql = """
        SELECT lower_channel, upper_channel, cursor_channel, state, sent_by_fanout FROM push_batches
        WHERE push_id = $1::uuid AND app_id = $3::int8 AND seq = $2::int4
        """

    struct Row {
        var lower: UUID?
        var upper: UUID?
        var cursor: UUID?
        var state: BatchState
        var sentByFanout: Bool
    }

    static func prepared(pushID: UUID, appID: Int64, seq: Int32) -> PreparedNamedStatement<Self> {
        var binds = PostgresBindings(capacity: 3)
        binds.append(pushID)
        binds.append(seq)
        binds.append(appID)
        return Self.prepared(bindings: binds)
    }

    static func decode(_ row: PostgresRow) throws -> Row {
        let (lower, upper, cursor, state, sentByFanout) = try row.decode(
            (UUID?, UUID?, UUID?, BatchState, Bool).self)
        return Row(lower: lower, upper: upper, cursor: cursor, state: state, sentByFanout: sentByFanout)
    }
}
