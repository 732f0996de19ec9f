import Foundation
import PostgresDatabase
import PostgresNIO

/// `$1` supersedes the pushes `$2` (each gets it in `superseded_by`) and is superseded by `$3`
/// (`DeliveryLedger.markSuperseding`). The rows are locked in key order: two pushes flagging the same older ones at
/// once wait for each other instead of deadlocking. Every push is of one app, `$4` (supersession is per name of an
/// app): on Citus the statement runs on its shard, where `FOR UPDATE` is allowed.
struct FlagSupersedingStatement: NamedStatement {
    static let name = "lagw_flag_superseding_v2"
    static let sql = """
        WITH locked AS (
            SELECT id FROM pushes WHERE app_id = $4::int8 AND id = ANY($2::uuid[] || $3::uuid[] || $1::uuid)
            ORDER BY id FOR UPDATE
        ),
        flagged AS (
            UPDATE pushes SET superseded_by = superseded_by || $1::uuid
            WHERE app_id = $4::int8 AND id IN (SELECT id FROM locked) AND id = ANY($2::uuid[])
              AND state IN ('queued', 'sending')
              AND NOT ($1::uuid = ANY(superseded_by))
        )
        UPDATE pushes SET superseded_by = ARRAY(SELECT DISTINCT unnest(superseded_by || $3::uuid[]))
        WHERE app_id = $4::int8 AND id IN (SELECT id FROM locked) AND id = $1::uuid AND cardinality($3::uuid[]) > 0
        """

    static func prepared(pushID: UUID, appID: Int64, older: [UUID], newer: [UUID]) -> PreparedNamedStatement<Self> {
        var binds = PostgresBindings(capacity: 4)
        binds.append(pushID)
        binds.append(older)
        binds.append(newer)
        binds.append(appID)
        return Self.prepared(bindings: binds)
    }
}
