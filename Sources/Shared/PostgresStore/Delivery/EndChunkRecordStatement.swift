import Foundation
import LiveActivitiesCore
import NIOCore
import PostgresNIO

/// The record of a chunk of an `end`: `UpdateChunkRecordStatement`'s statement (the same parameters), whose stamp
/// also ends each instance it reaches, and without update budgets (an end has none).
struct EndChunkRecordStatement: ChunkRecordStatement {
    static let name = "lagw_end_chunk_record_v4"
    static let sql = """
        WITH clock AS (
            SELECT now() AS now, now() - interval '1 hour' AS hour_ago,
                   now() + make_interval(secs => $29::float8) AS lease_until
        ),
        attempts AS (
            INSERT INTO start_attempts (push_id, app_id, channel_id, name, attributes_type, token, window_until,
                                        push_created_at)
            SELECT $1::uuid, $2::int8, x.c, $3::text, $4::text, x.t,
                   least(now() + a.start_confirm_window, p.created_at + \(StartAttemptBound.afterPush)), p.created_at
            FROM unnest($5::uuid[], $6::text[]) AS x(c, t)
            CROSS JOIN (SELECT start_confirm_window FROM apps WHERE id = $2::int8) a
            CROSS JOIN (SELECT created_at FROM pushes WHERE id = $1::uuid AND app_id = $2::int8) p
            WHERE p.created_at + \(StartAttemptBound.afterPush) > now()
            ON CONFLICT (push_id, channel_id, push_created_at, app_id) DO NOTHING
        ),
        budgeted AS (
            UPDATE live_activities l
            SET p10_count = CASE WHEN l.p10_hour_start > k.hour_ago THEN l.p10_count + 1 ELSE 1 END,
                p10_hour_start = CASE WHEN l.p10_hour_start > k.hour_ago THEN l.p10_hour_start
                                      ELSE k.now END
            FROM clock k
            WHERE l.id = ANY($7::int8[]) AND l.app_id = $2::int8
        ),
        deferred AS (
            INSERT INTO delivery_stamps (push_id, app_id, activity_name, apns_timestamp, push_seq, instance_ids,
                                         first_channel, last_channel)
            SELECT $1::uuid, $2::int8, $3::text, $8::int8, $9::int8, $10::int8[], $11::uuid, $12::uuid
            WHERE cardinality($10::int8[]) > 0
        ),
        deferring AS (
            INSERT INTO delivery_stamp_pushes (push_id, app_id, activity_name, apns_timestamp, push_seq)
            SELECT $1::uuid, $2::int8, $3::text, $8::int8, $9::int8
            WHERE cardinality($10::int8[]) > 0
            ON CONFLICT (push_id, app_id) DO NOTHING
        ),
        targets AS (
            SELECT nullif(r, '')::tid AS row, id FROM unnest($13::text[], $14::int8[]) AS x(r, id)
        ),
        stamp AS (SELECT $8::int8 AS ts, $9::int8 AS seq, $1::uuid AS push_id),
        b AS (SELECT $15::int8[] AS ids),
        in_place AS (
            UPDATE live_activities l
            SET (last_apns_timestamp, last_push_seq, last_update_at, last_push_id) =
                    (SELECT CASE WHEN o.newer THEN s.ts ELSE l.last_apns_timestamp END,
                            CASE WHEN o.newer THEN s.seq ELSE l.last_push_seq END, now(),
                            CASE WHEN o.newer THEN s.push_id ELSE l.last_push_id END
                     FROM (SELECT (s.ts, s.seq) >= (coalesce(l.last_apns_timestamp, 0), coalesce(l.last_push_seq, 0))
                                  AS newer) o),
                state = 'ended', ended_reason = 'end_pushed', ended_at = now()
            FROM targets x, stamp s, b
            WHERE l.ctid = x.row AND l.id = x.id AND l.app_id = $2::int8 AND l.state = 'active'
            RETURNING l.id
        ),
        moved AS (
            UPDATE live_activities l
            SET (last_apns_timestamp, last_push_seq, last_update_at, last_push_id) =
                    (SELECT CASE WHEN o.newer THEN s.ts ELSE l.last_apns_timestamp END,
                            CASE WHEN o.newer THEN s.seq ELSE l.last_push_seq END, now(),
                            CASE WHEN o.newer THEN s.push_id ELSE l.last_push_id END
                     FROM (SELECT (s.ts, s.seq) >= (coalesce(l.last_apns_timestamp, 0), coalesce(l.last_push_seq, 0))
                                  AS newer) o),
                state = 'ended', ended_reason = 'end_pushed', ended_at = now()
            FROM stamp s, b
            WHERE l.id = ANY(ARRAY(SELECT id FROM targets EXCEPT SELECT id FROM in_place)) AND l.app_id = $2::int8
              AND l.state = 'active'
        )
        UPDATE push_batches
        SET cursor_channel = $16::uuid, processed = processed + $17::int4, sent = sent + $18::int8,
            accepted = accepted + $19::int8, failed = failed + $20::int8, skipped = skipped + $21::int8,
            superseded = superseded + $22::int8, already_active = already_active + $23::int8,
            start_budget = start_budget + $24::int8, suspect_token = suspect_token + $25::int8,
            downgraded = downgraded + $26::int8, first_request_at = least(first_request_at, $27::timestamptz),
            canceled = CASE WHEN state = 'stopped' THEN greatest(canceled - $17::int4, 0) ELSE canceled END,
            sending_gen = superseded_gen,
            sending_until = CASE WHEN $28::bool OR state <> 'queued' THEN NULL
                                 ELSE k.lease_until END
        FROM clock k
        WHERE push_id = $1::uuid AND app_id = $2::int8 AND seq = $30::int4 AND runner IS NOT DISTINCT FROM $31::uuid
        RETURNING state, superseded_gen
        """
    let bindings: PostgresBindings

    init(_ bindings: ChunkRecordBindings) {
        self.bindings = bindings.bindings
    }

    func makeBindings() throws -> PostgresBindings { self.bindings }

    func decodeRow(_ row: PostgresRow) throws -> ChunkRecordAnswer { try row.decode((BatchState, Int32).self) }
}
