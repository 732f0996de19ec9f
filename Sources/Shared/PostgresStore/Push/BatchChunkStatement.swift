import Foundation
import LiveActivitiesCore
import PostgresNIO

/// A batch's chunk select in its most common shape (an update to `all`, without broadcast delivery, update budgets or
/// the rows' places), as a prepared statement: PostgreSQL parses and plans it once per connection instead of once per
/// chunk (planning took 1.8-2.5 ms against 1.2 ms of execution for a chunk of 1,000, `EXPLAIN ANALYZE`). The text is
/// `PushTargets.chunkSelect`'s own for that shape and the bindings are those the same call makes for the real values,
/// so the two cannot drift apart: a push whose select comes out as another text is read unprepared.
struct BatchChunkStatement: PostgresPreparedStatement, NamedStatement {
    static let name = "lagw_batch_chunk_v1"
    static let sql: String = {
        var sql = SQLBuilder()
        let template = PushTargets(appID: 0, event: .update, name: "", attributesType: nil, audience: .all)
        return template.chunkSelect(
            &sql, after: .lowest, upTo: .highest, limit: 0, sentBy: (UUID(), PushOrder(timestamp: 0, seq: 0)),
            rowRefs: false)
    }()
    typealias Row = (target: PushTargets.Target, blocked: Bool)

    let bindings: PostgresBindings

    /// Nil unless `targets` read without row places has this statement's text. A range without a lower or upper end
    /// is bounded by the lowest or highest UUID instead (no channel id is either: they are random, version 4).
    init?(_ targets: PushTargets, after: UUID?, upTo: UUID?, limit: Int, sentBy push: (id: UUID, order: PushOrder)) {
        var sql = SQLBuilder()
        let text = targets.chunkSelect(
            &sql, after: after ?? .lowest, upTo: upTo ?? .highest, limit: limit, sentBy: push, rowRefs: false)
        guard text == Self.sql else { return nil }
        self.bindings = sql.binds
    }

    func makeBindings() throws -> PostgresBindings { self.bindings }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let decoded = try PushTargets.Target.decode(row)
        return (decoded.target, decoded.blocked)
    }
}
