import Foundation
import PostgresNIO

/// `UpdateChunkRecordStatement` on Citus (`DeliveryLedger.isDistributed`): every stamp in place goes by id. Citus
/// runs an update with a `ctid` condition only when the whole statement runs on one shard, and a statement with an
/// `INSERT ... SELECT` (the start attempts, the deferred stamps) does not; so `in_place` selects nothing and `moved`
/// stamps every target by primary key. The chunk selects read no row places there either (`rowRefs`).
struct UpdateChunkRecordByIDStatement: PostgresPreparedStatement, NamedStatement {
    static let name = "lagw_update_chunk_record_by_id_v1"
    static let sql: String = {
        let text = UpdateChunkRecordStatement.sql
        guard let start = text.range(of: "in_place AS ("), let end = text.range(of: "moved AS (") else {
            preconditionFailure("UpdateChunkRecordStatement lost its in_place and moved parts")
        }
        return text[..<start.lowerBound] + "in_place AS (SELECT id FROM targets WHERE false),\n"
            + text[end.lowerBound...]
    }()
    typealias Row = UpdateChunkRecordStatement.Row

    let bindings: PostgresBindings

    init(_ bindings: ChunkRecordBindings) {
        self.bindings = bindings.bindings
    }

    func makeBindings() throws -> PostgresBindings { self.bindings }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((BatchState, Int32).self) }
}
