import Foundation
import PostgresNIO

/// The unfinished batches of the superseded pushes `$1` take their push's superseding count as `superseded_gen`
/// (`DeliveryLedger.markSuperseding`); locked in key order.
struct RaiseSupersededGenStatement: NamedStatement {
    static let name = "lagw_raise_superseded_gen_v1"
    static let sql = """
        WITH locked AS (
            SELECT push_id, seq FROM push_batches
            WHERE push_id = ANY($1::uuid[]) AND state <> 'done' ORDER BY push_id, seq FOR UPDATE
        )
        UPDATE push_batches b SET superseded_gen = greatest(b.superseded_gen, cardinality(p.superseded_by))
        FROM pushes p, locked k
        WHERE p.id = k.push_id AND b.push_id = k.push_id AND b.seq = k.seq
        """

    static func query(pushes: [UUID]) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 1)
        binds.append(pushes)
        return PostgresQuery(unsafeSQL: Self.sql, binds: binds)
    }
}
