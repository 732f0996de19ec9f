import Foundation
import PostgresDatabase
import PostgresNIO

/// Declares that a queued batch of the run `$3` is about to send a chunk, for `$4` seconds
/// (`DeliveryLedger.declareChunk`); answers the superseding count the chunk must honour.
struct DeclareChunkStatement: NamedStatement {
    static let name = "lagw_declare_chunk_v2"
    static let sql = """
        UPDATE push_batches
        SET sending_gen = superseded_gen, sending_until = now() + make_interval(secs => $4::float8)
        WHERE push_id = $1::uuid AND app_id = $5::int8 AND seq = $2::int4 AND state = 'queued'
          AND runner IS NOT DISTINCT FROM $3::uuid
        RETURNING superseded_gen
        """

    struct Row {
        var superseding: Int32
    }

    static func prepared(pushID: UUID, appID: Int64, seq: Int32, runner: UUID?, leaseSeconds: Double)
        -> PreparedNamedStatement<Self>
    {
        var binds = PostgresBindings(capacity: 5)
        binds.append(pushID)
        binds.append(seq)
        binds.append(runner)
        binds.append(leaseSeconds)
        binds.append(appID)
        return Self.prepared(bindings: binds)
    }

    static func decode(_ row: PostgresRow) throws -> Row { Row(superseding: try row.decode(Int32.self)) }
}
