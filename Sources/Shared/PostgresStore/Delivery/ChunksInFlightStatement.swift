import Foundation
import PostgresDatabase
import PostgresNIO

/// How many batches of the pushes `$1` are sending a chunk chosen before their latest superseding push
/// (`DeliveryLedger.chunksInFlight`).
struct ChunksInFlightStatement: NamedStatement {
    static let name = "lagw_chunks_in_flight_v2"
    static let sql = """
        SELECT count(*) AS in_flight FROM push_batches
        WHERE push_id = ANY($1::uuid[]) AND app_id = $2::int8 AND state <> 'done' AND sending_until > now()
          AND sending_gen < superseded_gen
        """

    struct Row {
        var inFlight: Int64
    }

    static func prepared(pushes: [UUID], appID: Int64) -> PreparedNamedStatement<Self> {
        var binds = PostgresBindings(capacity: 2)
        binds.append(pushes)
        binds.append(appID)
        return Self.prepared(bindings: binds)
    }

    static func decode(_ row: PostgresRow) throws -> Row { Row(inFlight: try row.decode(Int64.self)) }
}
