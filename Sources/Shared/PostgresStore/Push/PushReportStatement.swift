import Foundation
import PostgresDatabase
import PostgresNIO

/// One push's report, as `GET /api/pushes/{id}` answers it: a row of the `push_report` view, read by column name into
/// `PushReportRow`. Prepared: the view reaches the pushes, batches, failures and attempts partitions, and PostgreSQL
/// spent 1.4-1.8 ms planning it against 0.4 ms running it (`EXPLAIN (ANALYZE)` on the fan-out bench's database, 110
/// partitions); its generic plan prunes them as the executor starts (0.02 ms of planning, 0.16 ms of execution).
struct PushReportStatement: NamedStatement {
    static let name = "lagw_push_report_v2"
    static let sql = """
        SELECT push_id, operation_id, event, activity_name, state, failure_reason, targeted, sent, accepted, failed,
               skipped, canceled, failed_by_reason::text, created_at, finished_at, first_request_at, superseded,
               delivery, broadcast_channel_id, broadcast_status, broadcast_reason, apns_unique_id, broadcast_sent_at,
               already_active, start_budget, started, not_started, start_pending, suspect_token,
               downgraded, starts_ended, starts_ended_on_device, starts_dismissed,
               lifetime_median_seconds::float8, lifetime_p90_seconds::float8, lifetime_max_seconds::float8
        FROM push_report WHERE push_id = $1::uuid AND app_id = $2::int8
        """

    static func prepared(pushID: UUID, appID: Int64) -> PreparedNamedStatement<Self> {
        var binds = PostgresBindings(capacity: 2)
        binds.append(pushID)
        binds.append(appID)
        return Self.prepared(bindings: binds)
    }
}
