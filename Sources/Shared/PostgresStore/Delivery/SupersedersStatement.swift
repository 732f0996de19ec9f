import Foundation
import PostgresDatabase
import PostgresNIO

/// The audiences (as JSON) of the pushes that supersede `$1` and may still send (`DeliveryLedger.superseders`).
struct SupersedersStatement: NamedStatement {
    static let name = "lagw_superseders_v2"
    static let sql = """
        SELECT n.audience::text AS audience
        FROM pushes o JOIN pushes n ON n.id = ANY(o.superseded_by) AND n.app_id = o.app_id
        WHERE o.id = $1::uuid AND n.state IN ('queued', 'sending', 'done')
        """

    struct Row {
        var audience: String
    }

    static func prepared(pushID: UUID) -> PreparedNamedStatement<Self> {
        var binds = PostgresBindings(capacity: 1)
        binds.append(pushID)
        return Self.prepared(bindings: binds)
    }

    static func decode(_ row: PostgresRow) throws -> Row { Row(audience: try row.decode(String.self)) }
}
