import Foundation
import PostgresNIO

/// The statements of the jobs that act on activities (`ActivityRenewer`, `IdleActivityEnder`) and of the device calls'
/// stored answers (`DeviceOperations`).
enum ActivityJobStatements {
    static let all: [any NamedStatement.Type] = [
        RenewDue.self, InsertRenewals.self, IdleDue.self, SetEndPushes.self, ClaimOperation.self,
        StoreOperationAnswer.self, StoredOperationAnswer.self,
    ]

    /// Locks up to `$1` active instances of app `$2` due for renewal (see `ActivityRenewer`), with what their new start
    /// needs: the attributes they were started with and their latest update's content state, and the policy's alert.
    enum RenewDue: NamedStatement {
        static let name = "lagw_renew_due_v2"
        static let sql = """
            SELECT la.id, la.app_id, la.channel_id, la.name, la.attributes_type, x.attributes::text,
                   x.content_state::text, coalesce(rt.alert_title, rd.alert_title),
                   coalesce(rt.alert_body, rd.alert_body)
            FROM (SELECT min(after_seconds) AS soonest FROM renew_policies WHERE app_id = $2) rp
            JOIN live_activities la
              ON la.app_id = $2 AND la.state = 'active' AND la.renewal_id IS NULL
             AND la.started_at < now() - make_interval(secs => rp.soonest)
            JOIN apps a ON a.id = la.app_id
            LEFT JOIN renew_policies rt ON rt.app_id = $2 AND rt.attributes_type = la.attributes_type
            LEFT JOIN renew_policies rd ON rd.app_id = $2 AND rd.attributes_type = ''
            CROSS JOIN LATERAL (
                SELECT coalesce(la.attributes,
                                (SELECT p.request #> '{notification,ios,live_activity,attributes}'
                                 FROM start_attempts s JOIN pushes p ON p.id = s.push_id AND p.app_id = $2
                                 WHERE s.app_id = $2 AND s.channel_id = la.channel_id AND s.name = la.name
                                   AND s.outcome = 'started'
                                 ORDER BY s.started_at DESC LIMIT 1)) AS attributes,
                       (SELECT p.request #> '{notification,ios,live_activity,content_state}'
                        FROM pushes p WHERE p.id = la.last_push_id AND p.app_id = $2) AS content_state
            ) x
            WHERE la.environment = a.apns_environment
              AND coalesce(rt.after_seconds, rd.after_seconds) IS NOT NULL
              AND la.started_at < now() - make_interval(secs => coalesce(rt.after_seconds, rd.after_seconds))
              AND la.last_update_at > now() - interval '1 hour'
              AND x.attributes IS NOT NULL AND x.content_state IS NOT NULL
            ORDER BY la.id
            LIMIT $1
            FOR UPDATE OF la SKIP LOCKED
            """
    }

    /// App `$1`'s renewals, one per element: channels `$2`, instances `$3`, names `$4`, end pushes `$5`, start pushes
    /// `$6`; each instance gets its `renewal_id`.
    enum InsertRenewals: NamedStatement {
        static let name = "lagw_renewals_insert_v2"
        static let sql = """
            WITH made AS (
                INSERT INTO renewals (app_id, channel_id, instance_id, name, end_push_id, start_push_id)
                SELECT $1, x.channel_id, x.id, x.name, x.end_id, x.start_id
                FROM unnest($2::uuid[], $3::int8[], $4::text[], $5::uuid[], $6::uuid[])
                    AS x(channel_id, id, name, end_id, start_id)
                RETURNING id, instance_id
            )
            UPDATE live_activities l SET renewal_id = made.id FROM made WHERE l.id = made.instance_id AND l.app_id = $1
            """
    }

    /// Locks up to `$1` active instances of app `$2` idle past its idle-end policy and without an end push, with the
    /// policy's dismissal delay in seconds.
    enum IdleDue: NamedStatement {
        static let name = "lagw_idle_due_v2"
        static let sql = """
            SELECT la.id, la.app_id, la.channel_id, la.name,
                   coalesce(pt.dismissal_seconds, pd.dismissal_seconds, 0)
            FROM live_activities la
            JOIN apps a ON a.id = la.app_id
            LEFT JOIN activity_policies pt ON pt.app_id = $2 AND pt.attributes_type = la.attributes_type
            LEFT JOIN activity_policies pd ON pd.app_id = $2 AND pd.attributes_type = ''
            WHERE la.app_id = $2 AND la.state = 'active' AND la.end_push_id IS NULL
              AND la.environment = a.apns_environment AND la.started_at > now() - a.activity_max_age
              AND coalesce(pt.idle_end_seconds, pd.idle_end_seconds) IS NOT NULL
              AND coalesce(la.last_update_at, la.started_at)
                  < now() - make_interval(secs => coalesce(pt.idle_end_seconds, pd.idle_end_seconds))
            ORDER BY la.id
            LIMIT $1
            FOR UPDATE OF la SKIP LOCKED
            """

        struct Row {
            var id: Int64
            var appID: Int64
            var channel: UUID
            var name: String
            var dismissalSeconds: Int32

            init(_ row: PostgresRow) throws {
                (self.id, self.appID, self.channel, self.name, self.dismissalSeconds) = try row.decode(
                    (Int64, Int64, UUID, String, Int32).self)
            }
        }
    }

    /// Instances `$1` of app `$3` get their end pushes `$2`.
    enum SetEndPushes: NamedStatement {
        static let name = "lagw_idle_set_end_pushes_v2"
        static let sql = """
            UPDATE live_activities l SET end_push_id = x.push_id
            FROM unnest($1::int8[], $2::uuid[]) AS x(id, push_id)
            WHERE l.id = x.id AND l.app_id = $3
            """
    }

    /// Claims key `$4` of route `$3` on channel `$2` of app `$1`; returns the claim's id, none when the key was
    /// claimed before or the channel is not the app's.
    enum ClaimOperation: NamedStatement {
        static let name = "lagw_device_operation_claim_v2"
        static let sql = """
            INSERT INTO device_operations (app_id, channel_id, route, idempotency_key)
            SELECT $1::int8, c.id, $3::text, $4::text FROM channels c WHERE c.id = $2::uuid AND c.app_id = $1::int8
            ON CONFLICT (app_id, channel_id, route, idempotency_key) DO NOTHING
            RETURNING id
            """
    }

    /// Stores answer `$1` (JSON text) of claim `$2`.
    enum StoreOperationAnswer: NamedStatement {
        static let name = "lagw_device_operation_store_v2"
        static let sql = "UPDATE device_operations SET response = $1::jsonb WHERE id = $2::int8"
    }

    /// The stored answer to key `$4` of route `$3` on channel `$2` of app `$1`.
    enum StoredOperationAnswer: NamedStatement {
        static let name = "lagw_device_operation_stored_v2"
        static let sql = """
            SELECT response::text FROM device_operations
            WHERE app_id = $1::int8 AND channel_id = $2::uuid AND route = $3::text
              AND idempotency_key = $4::text AND response IS NOT NULL
            """
    }
}
