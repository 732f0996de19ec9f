import Foundation
import LiveActivitiesCore
import PostgresNIO

/// A batch's chunk select in one of its most common shapes (`ChunkSelectShape`: an update to `all`, a start to
/// `all`), as a prepared statement: PostgreSQL parses and plans it once per connection instead of once per chunk
/// (planning took 1.8-2.5 ms against 1.2 ms of execution for an update's chunk of 1,000, `EXPLAIN ANALYZE`). The
/// push's shape chooses it (`fits`); the text is `PushTargets.chunkSelect`'s own for that shape and the bindings are
/// those the same call makes for the real values, so the two cannot drift apart. Other shapes are read unprepared.
struct BatchChunkStatement<Shape: ChunkSelectShape>: PostgresPreparedStatement, NamedStatement {
    static var name: String { Shape.name }
    static var sql: String { Shape.sql }
    typealias Row = (target: PushTargets.Target, blocked: Bool)

    let bindings: PostgresBindings

    /// Nil unless `targets` (read with or without row places, `rowRefs`) have the shape. A range without a lower or
    /// upper end is bounded by the lowest or highest UUID instead (no channel id is either: they are random, version 4).
    init?(
        _ targets: PushTargets, after: UUID?, upTo: UUID?, limit: Int, sentBy push: (id: UUID, order: PushOrder),
        rowRefs: Bool = false
    ) {
        guard Shape.fits(targets, rowRefs: rowRefs) else { return nil }
        var sql = SQLBuilder()
        let text = targets.chunkSelect(
            &sql, after: after ?? .lowest, upTo: upTo ?? .highest, limit: limit, sentBy: push, rowRefs: rowRefs)
        // The shape chose; a different text here means `fits` missed something that changes the select.
        assert(text == Self.sql, "a push that fits \(Shape.self) made another select")
        self.bindings = sql.binds
    }

    func makeBindings() throws -> PostgresBindings { self.bindings }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let decoded = try PushTargets.Target.decode(row)
        return (decoded.target, decoded.blocked)
    }
}
