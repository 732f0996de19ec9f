import Foundation
import PostgresNIO

/// A chunk's record on Citus (`DeliveryLedger.isDistributed`): `Base`'s statement with every stamp by id. Citus runs
/// an update with a `ctid` condition only when the whole statement runs on one shard, and a statement with an
/// `INSERT ... SELECT` (the start attempts, the deferred stamps) does not; so `in_place` selects nothing and `moved`
/// stamps every target by primary key. The chunk selects read no row places there either (`rowRefs`).
struct ChunkRecordByIDStatement<Base: ChunkRecordStatement>: ChunkRecordStatement {
    static var name: String { Base.name + "_by_id" }
    static var sql: String {
        let text = Base.sql
        guard let start = text.range(of: "in_place AS ("), let end = text.range(of: "moved AS (") else {
            preconditionFailure("\(Base.self) lost its in_place and moved parts")
        }
        return text[..<start.lowerBound] + "in_place AS (SELECT id FROM targets WHERE false),\n"
            + text[end.lowerBound...]
    }

    let bindings: PostgresBindings

    init(_ bindings: ChunkRecordBindings) {
        self.bindings = bindings.bindings
    }

    func makeBindings() throws -> PostgresBindings { self.bindings }

    func decodeRow(_ row: PostgresRow) throws -> ChunkRecordAnswer { try row.decode((BatchState, Int32).self) }
}
