import Foundation
import LiveActivitiesCore
import NIOCore
import PostgresNIO

/// The record of a chunk of an update (its stamps deferred as a push sent in batches defers them, or stamped in place
/// without update budgets: the same text), as a prepared statement: PostgreSQL planned the statement's eight parts for every chunk, 2.0 s of
/// planning against 1.4 s of execution for a million targets (`pg_stat_statements.track_planning`). The text is the one
/// `DeliveryLedger.stampAndCount` makes for that shape and the bindings are those it makes for the real chunk, so the
/// two cannot drift apart: a record that comes out as another text is made unprepared.
struct UpdateChunkRecordStatement: PostgresPreparedStatement {
    static let name = "lagw_update_chunk_record_v1"
    static let sql: String = {
        let push = PushForDelivery(
            id: UUID(), appID: 0, state: .sending, event: "update", name: "", attributesType: nil, audience: .all,
            payload: ByteBuffer(), timestamp: 0, seq: 0, priority: 10)
        let outcome = ChunkOutcome(cursor: .lowest, processed: 0, sendStartedAt: Date())
        return DeliveryLedger.stampAndCount(outcome, push: push, seq: 0, deferStamps: true).sql
    }()
    typealias Row = (state: BatchState, superseding: Int32)

    let bindings: PostgresBindings

    /// Nil unless `query` has this statement's text.
    init?(_ query: PostgresQuery) {
        guard query.sql == Self.sql else { return nil }
        self.bindings = query.binds
    }

    func makeBindings() throws -> PostgresBindings { self.bindings }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((BatchState, Int32).self) }
}
