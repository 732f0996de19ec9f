import Foundation
import PostgresNIO

/// What a chunk's record answers: the batch's state and how many pushes supersede it (no row: another run claimed
/// the batch).
typealias ChunkRecordAnswer = (state: BatchState, superseding: Int32)

/// A chunk's record as one prepared statement, by the push's event: `UpdateChunkRecordStatement` (an update's or a
/// start's), `EndChunkRecordStatement`, each with `ChunkRecordBindings`' parameters; on Citus each as
/// `ChunkRecordByIDStatement`.
protocol ChunkRecordStatement: PostgresPreparedStatement, NamedStatement where Row == ChunkRecordAnswer {
    init(_ bindings: ChunkRecordBindings)
}
