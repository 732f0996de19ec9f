import Foundation
import LiveActivitiesCore

/// A shape of push whose chunk select is one text whatever its values, read by `BatchChunkStatement`: its name on the
/// connection, its text (`PushTargets.chunkSelect` of a template push of the shape), and which pushes have it.
protocol ChunkSelectShape: Sendable {
    static var name: String { get }
    /// Computed once (a stored `static let` of the conforming type): the prepared statement's text.
    static var sql: String { get }
    /// Whether `targets`, read with or without the rows' places (`rowRefs`), make this shape's text.
    static func fits(_ targets: PushTargets, rowRefs: Bool) -> Bool
}

extension ChunkSelectShape {
    /// The select `template` makes for a whole range and some push.
    static func select(of template: PushTargets) -> String {
        var sql = SQLBuilder()
        return template.chunkSelect(
            &sql, after: .lowest, upTo: .highest, limit: 0, sentBy: (UUID(), PushOrder(timestamp: 0, seq: 0)),
            rowRefs: false)
    }
}
