import Foundation
import PostgresNIO

/// A fan-out's batches (`DeliveryLedger.recordFanout`), one per channel range of the plan: `lowers` and `uppers` are
/// the ranges' ends as text, '' for an open end.
struct InsertFanoutBatchesStatement: NamedStatement {
    static let name = "lagw_insert_fanout_batches_v2"
    static let sql = """
        INSERT INTO push_batches (push_id, seq, lower_channel, upper_channel, targets, targets_estimated,
                                  sent_by_fanout, superseded_gen, push_created_at, app_id)
        SELECT $1::uuid, seq::int4 - 1, nullif(lo, '')::uuid, nullif(hi, '')::uuid, n, $2::bool,
               false, p.superseding, p.created_at, p.app_id
        FROM (SELECT cardinality(superseded_by) AS superseding, created_at, app_id FROM pushes WHERE id = $1::uuid) p,
             unnest($3::text[], $4::text[], $5::int4[]) WITH ORDINALITY AS x(lo, hi, n, seq)
        """

    static func query(pushID: UUID, estimated: Bool, lowers: [String], uppers: [String], sizes: [Int32])
        -> PostgresQuery
    {
        var binds = PostgresBindings(capacity: 5)
        binds.append(pushID)
        binds.append(estimated)
        binds.append(lowers)
        binds.append(uppers)
        binds.append(sizes)
        return PostgresQuery(unsafeSQL: Self.sql, binds: binds)
    }
}
