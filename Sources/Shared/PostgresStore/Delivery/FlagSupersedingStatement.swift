import Foundation
import PostgresNIO

/// `$1` supersedes the pushes `$2` (each gets it in `superseded_by`) and is superseded by `$3`
/// (`DeliveryLedger.markSuperseding`). The rows are locked in key order: two pushes flagging the same older ones at
/// once wait for each other instead of deadlocking.
struct FlagSupersedingStatement: NamedStatement {
    static let name = "lagw_flag_superseding_v1"
    static let sql = """
        WITH locked AS (
            SELECT id FROM pushes WHERE id = ANY($2::uuid[] || $3::uuid[] || $1::uuid) ORDER BY id FOR UPDATE
        ),
        flagged AS (
            UPDATE pushes SET superseded_by = superseded_by || $1::uuid
            WHERE id IN (SELECT id FROM locked) AND id = ANY($2::uuid[]) AND state IN ('queued', 'sending')
              AND NOT ($1::uuid = ANY(superseded_by))
        )
        UPDATE pushes SET superseded_by = ARRAY(SELECT DISTINCT unnest(superseded_by || $3::uuid[]))
        WHERE id IN (SELECT id FROM locked) AND id = $1::uuid AND cardinality($3::uuid[]) > 0
        """

    static func query(pushID: UUID, older: [UUID], newer: [UUID]) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 3)
        binds.append(pushID)
        binds.append(older)
        binds.append(newer)
        return PostgresQuery(unsafeSQL: Self.sql, binds: binds)
    }
}
