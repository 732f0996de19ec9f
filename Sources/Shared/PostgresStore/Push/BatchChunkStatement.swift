import Foundation
import LiveActivitiesCore
import PostgresNIO

/// A batch's chunk select in its most common shape (an update to `all`, without broadcast delivery, update budgets or
/// the rows' places), as a prepared statement: PostgreSQL parses and plans it once per connection instead of once per
/// chunk (planning took 1.8-2.5 ms against 1.2 ms of execution for a chunk of 1,000, `EXPLAIN ANALYZE`). The push's
/// shape chooses it (`fits`); the text is `PushTargets.chunkSelect`'s own for that shape and the bindings are those
/// the same call makes for the real values, so the two cannot drift apart. Other shapes are read unprepared.
struct BatchChunkStatement: PostgresPreparedStatement, NamedStatement {
    static let name = "lagw_batch_chunk_v2"
    static let sql: String = {
        var sql = SQLBuilder()
        let template = PushTargets(appID: 0, event: .update, name: "", attributesType: nil, audience: .all)
        return template.chunkSelect(
            &sql, after: .lowest, upTo: .highest, limit: 0, sentBy: (UUID(), PushOrder(timestamp: 0, seq: 0)),
            rowRefs: false)
    }()
    typealias Row = (target: PushTargets.Target, blocked: Bool)

    let bindings: PostgresBindings

    /// Whether `targets` have this statement's shape: an update or an end of a name, to `all`, without broadcast
    /// delivery or update budgets (each of those adds to the select's text).
    static func fits(_ targets: PushTargets) -> Bool {
        targets.event != .start && targets.name != nil && targets.audience == .all
            && targets.broadcastChannelID == nil && targets.updateBudgets.isEmpty
    }

    /// Nil unless `targets` (read without row places) `fits`. A range without a lower or upper end is bounded by the
    /// lowest or highest UUID instead (no channel id is either: they are random, version 4).
    init?(_ targets: PushTargets, after: UUID?, upTo: UUID?, limit: Int, sentBy push: (id: UUID, order: PushOrder)) {
        guard Self.fits(targets) else { return nil }
        var sql = SQLBuilder()
        let text = targets.chunkSelect(
            &sql, after: after ?? .lowest, upTo: upTo ?? .highest, limit: limit, sentBy: push, rowRefs: false)
        // The shape chose; a different text here means `fits` missed something that changes the select.
        assert(text == Self.sql, "a push that fits BatchChunkStatement made another select")
        self.bindings = sql.binds
    }

    func makeBindings() throws -> PostgresBindings { self.bindings }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let decoded = try PushTargets.Target.decode(row)
        return (decoded.target, decoded.blocked)
    }
}
