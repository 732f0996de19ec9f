import Foundation
import LiveActivitiesCore
import NIOCore
import PostgresDatabase
import PostgresNIO

/// The push store's statements (`PostgresPushStore`, `StartSettlement`). The statements that select a push's targets
/// embed its audience (`PushTargets`) and are not here.
enum PushStatements {
    static let all: [any NamedStatement.Type] = [
        Insert.self, StoredResponse.self, LockForCancel.self, CancelFannedOut.self, CancelBeforeFanout.self,
        SettleStarts.self,
    ]

    /// One statement: operation `$1` of app `$2` under idempotency key `$3` (NULL: none) answering `$4` (JSON text),
    /// unless its key was used before; then its pushes (`$5`... `$18`, one per element) and one fan-out job each (kind
    /// `$19`; payloads `$20`, priorities `$21` and attempt limits `$22` by push), only if the operation went in.
    /// Answers one row: whether it did (`Row`). A job's snapshot gets the acceptance order the insert assigns
    /// (`RETURNING seq`). Prepared: unprepared, it was planned at every push (0.24 ms a call against 0.85 ms of
    /// execution, pg_stat_statements of a fan-out bench's single updates: docs/benchmarks.md).
    enum Insert: NamedStatement {
        static let name = "lagw_push_insert_v2"
        static let sql = """
            WITH op AS (
                INSERT INTO push_operations (id, app_id, idempotency_key, response)
                VALUES ($1::uuid, $2::int8, $3::text, $4::jsonb)
                ON CONFLICT (app_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
                RETURNING id
            ),
            inserted AS (
                INSERT INTO pushes (id, app_id, operation_id, event, activity_name, attributes_type, audience, request,
                                    apns_payload, apns_timestamp, apns_priority, campaign_categories, schedule_id,
                                    delivery, broadcast_channel_id, apns_expiration)
                SELECT x.id, $2, op.id, event, nullif(name, ''), nullif(type, ''), audience::jsonb,
                       request::jsonb, payload, ts, priority, string_to_array(categories, E'\\x1f'),
                       nullif(schedule, '')::uuid, delivery, nullif(broadcast, ''), nullif(expiration, -1)
                FROM op, unnest($5::uuid[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::bytea[],
                                $12::int8[], $13::int2[], $14::text[], $15::text[], $16::text[], $17::text[],
                                $18::int8[])
                    AS x(id, event, name, type, audience, request, payload, ts, priority, categories, schedule,
                         delivery, broadcast, expiration)
                RETURNING id, seq
            ),
            queued AS (
                INSERT INTO jobs (kind, app_id, payload, priority, run_at, max_attempts)
                SELECT $19, $2, jsonb_set(j.payload::jsonb, '{push,seq}', to_jsonb(i.seq)), j.priority, now(),
                       j.attempts
                FROM inserted i
                JOIN unnest($5::uuid[], $20::text[], $21::int2[], $22::int4[]) AS j(id, payload, priority, attempts)
                    ON j.id = i.id
            )
            SELECT count(*) FROM op
            """

        /// `schedules`: each push's schedule id ('' for none); `jobs`: each push's fan-out job.
        static func prepared(
            _ rows: PostgresPushStore.Rows, accepted: PushAccepted, appID: Int64, idempotencyKey: String?,
            response: String, schedules: [String], jobs: [JobRequest]
        ) -> PreparedNamedStatement<Self> {
            let pushes = rows.pushes.map(\.liveActivity)
            var binds = PostgresBindings(capacity: 22)
            binds.append(accepted.operationID)
            binds.append(appID)
            binds.append(idempotencyKey)
            binds.append(response)
            binds.append(accepted.pushIDs)
            binds.append(pushes.map(\.event.rawValue))
            binds.append(pushes.map { $0.name ?? "" })
            binds.append(pushes.map { $0.attributesType ?? "" })
            binds.append(rows.audiences)
            binds.append(rows.requests)
            binds.append(rows.payloads)
            binds.append(pushes.map { $0.timestamp ?? rows.timestamp })
            binds.append(pushes.map { Int16($0.priority) })
            binds.append(rows.pushes.map { $0.campaignCategories.joined(separator: "\u{1f}") })
            binds.append(schedules)
            binds.append(rows.routes.map(\.name))
            binds.append(rows.routes.map { $0.channelID ?? "" })
            binds.append(pushes.map { $0.expiration ?? -1 })
            binds.append(JobKind.pushFanout)
            binds.append(jobs.map(\.payload))
            binds.append(jobs.map(\.priority))
            binds.append(jobs.map(\.maxAttempts))
            return Self.prepared(bindings: binds)
        }

        struct Row {
            /// False when the idempotency key was used before: nothing went in.
            var inserted: Bool

            init(_ row: PostgresRow) throws { self.inserted = try row.decode(Int64.self) > 0 }
        }
    }

    /// The answer stored for app `$1`'s idempotency key `$2` (JSON text).
    enum StoredResponse: NamedStatement {
        static let name = "lagw_push_stored_response"
        static let sql = "SELECT response::text FROM push_operations WHERE app_id = $1 AND idempotency_key = $2"

        static func query(appID: Int64, idempotencyKey: String?) -> PostgresQuery {
            var binds = PostgresBindings(capacity: 2)
            binds.append(appID)
            binds.append(idempotencyKey)
            return Self.bound(binds)
        }

        struct Row {
            var response: String

            init(_ row: PostgresRow) throws { self.response = try row.decode(String.self) }
        }
    }

    /// Locks push `$1` of app `$2` for a cancel; what the cancel needs of it.
    enum LockForCancel: NamedStatement {
        static let name = "lagw_push_lock_for_cancel"
        static let sql = """
            SELECT state, batches_total, event, activity_name, attributes_type, audience::text FROM pushes
            WHERE id = $1 AND app_id = $2 FOR UPDATE
            """

        struct Row {
            var state: PushState
            /// Nil until the push fanned out.
            var batches: Int32?
            var event: String
            var name: String?
            var attributesType: String?
            /// The audience, as JSON text.
            var audience: String

            init(_ row: PostgresRow) throws {
                (self.state, self.batches, self.event, self.name, self.attributesType, self.audience) =
                    try row.decode((PushState, Int32?, String, String?, String?, String).self)
            }
        }
    }

    /// Push `$1`, fanned out, is canceled: its batches stop and count what they did not process
    /// (`DeliveryLedger.stopBatches`).
    enum CancelFannedOut: NamedStatement {
        static let name = "lagw_push_cancel_fanned_out"
        static let sql = "UPDATE pushes SET state = 'canceled', finished_at = now() WHERE id = $1"
    }

    /// Push `$1`, not fanned out yet, is canceled with its `$2` targets.
    enum CancelBeforeFanout: NamedStatement {
        static let name = "lagw_push_cancel_before_fanout"
        static let sql = "UPDATE pushes SET state = 'canceled', canceled = $2, finished_at = now() WHERE id = $1"
    }

    /// Up to `$1` start pushes of app `$2` whose confirmation window closed (the app's `start_confirm_window` after the push
    /// finished), oldest first, skipping those another run holds, get their final counts (`StartSettlement`).
    /// Answers a row per push (`Row`).
    enum SettleStarts: NamedStatement {
        static let name = "lagw_starts_settle_v2"
        static let sql = """
            WITH due AS (
                SELECT p.id FROM pushes p JOIN apps a ON a.id = p.app_id
                WHERE p.app_id = $2 AND p.event = 'start' AND p.starts_settled_at IS NULL AND p.finished_at IS NOT NULL
                  AND p.finished_at + a.start_confirm_window <= now()
                ORDER BY p.finished_at LIMIT $1
                FOR UPDATE OF p SKIP LOCKED
            ),
            counts AS (
                SELECT d.id,
                       (SELECT count(*) FROM start_attempts s
                        WHERE s.push_id = d.id AND s.app_id = $2 AND s.outcome = 'started') AS started,
                       (SELECT coalesce(sum(b.accepted), 0)::int8 FROM push_batches b
                        WHERE b.push_id = d.id AND b.app_id = $2) AS accepted
                FROM due d
            )
            UPDATE pushes p
            SET starts_started = c.started, starts_not_started = greatest(c.accepted - c.started, 0),
                starts_settled_at = now()
            FROM counts c
            WHERE p.id = c.id AND p.app_id = $2
            RETURNING p.starts_started, p.starts_not_started
            """

        struct Row {
            var started: Int64
            var notStarted: Int64

            init(_ row: PostgresRow) throws { (self.started, self.notStarted) = try row.decode((Int64, Int64).self) }
        }
    }
}
