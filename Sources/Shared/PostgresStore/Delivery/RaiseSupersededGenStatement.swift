import Foundation
import PostgresDatabase
import PostgresNIO

/// The unfinished batches of the superseded pushes `$1` take their push's superseding count as `superseded_gen`
/// (`DeliveryLedger.markSuperseding`); locked in key order. The pushes are of app `$2` (one shard on Citus).
struct RaiseSupersededGenStatement: NamedStatement {
    static let name = "lagw_raise_superseded_gen_v2"
    static let sql = """
        WITH locked AS (
            SELECT push_id, seq FROM push_batches
            WHERE app_id = $2::int8 AND push_id = ANY($1::uuid[]) AND state <> 'done' ORDER BY push_id, seq FOR UPDATE
        )
        UPDATE push_batches b SET superseded_gen = greatest(b.superseded_gen, cardinality(p.superseded_by))
        FROM pushes p, locked k
        WHERE p.id = k.push_id AND p.app_id = $2::int8 AND b.push_id = k.push_id AND b.app_id = $2::int8
          AND b.seq = k.seq
        """

    static func prepared(pushes: [UUID], appID: Int64) -> PreparedNamedStatement<Self> {
        var binds = PostgresBindings(capacity: 2)
        binds.append(pushes)
        binds.append(appID)
        return Self.prepared(bindings: binds)
    }
}
