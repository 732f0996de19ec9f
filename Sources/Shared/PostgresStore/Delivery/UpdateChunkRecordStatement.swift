import Foundation
import LiveActivitiesCore
import NIOCore
import PostgresNIO

/// The record of a chunk of an update or a start (`DeliveryLedger.record`), one statement: start attempts (their
/// window the app's, closing by `StartAttemptBound` after the push), update
/// budgets, the instances' delivery stamps (in place, or deferred to one `delivery_stamps` row), and the chunk's counts
/// and cursor on its batch row, answering the batch's state and superseding count. A batch that was stopped while the
/// chunk was in flight takes back from its `canceled` what the chunk did process. Unless `$28` (the batch's last
/// chunk), the batch's next chunk is declared in flight. A stamp moves an instance's last push only forward in
/// `PushOrder`; the update time is the delivery's.
///
/// The stamp goes to each row where the chunk's select found it (`ctid`, checked against the id), which spares a
/// primary-key probe per instance; a row that has moved since (a rotation wrote a new version), or whose place the
/// select did not read (`Target.row` empty), is stamped by id. Instances stamped here count their update budget in
/// the same update (`$15`; a row is updated once per statement), the others in `budgeted` (`$7`).
///
/// Every table is read by the push's app (`$2`): on Citus the statement runs on the app's shard, which takes no
/// `now()`, nor time arithmetic, inside a `CASE` of an update: those read `clock`'s times instead.
///
/// Prepared: PostgreSQL planned the statement's eight parts for every chunk, 2.0 s of planning against 1.4 s of
/// execution for a million targets (`pg_stat_statements.track_planning`). An end's record is `EndChunkRecordStatement`.
struct UpdateChunkRecordStatement: ChunkRecordStatement {
    static let name = "lagw_update_chunk_record_v5"
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
                p10_count = CASE WHEN NOT l.id = ANY(b.ids) THEN l.p10_count
                                 WHEN l.p10_hour_start > k.hour_ago THEN l.p10_count + 1 ELSE 1 END,
                p10_hour_start = CASE WHEN NOT l.id = ANY(b.ids) THEN l.p10_hour_start
                                      WHEN l.p10_hour_start > k.hour_ago THEN l.p10_hour_start
                                      ELSE k.now END
            FROM targets x, stamp s, b, clock k
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
                p10_count = CASE WHEN NOT l.id = ANY(b.ids) THEN l.p10_count
                                 WHEN l.p10_hour_start > k.hour_ago THEN l.p10_count + 1 ELSE 1 END,
                p10_hour_start = CASE WHEN NOT l.id = ANY(b.ids) THEN l.p10_hour_start
                                      WHEN l.p10_hour_start > k.hour_ago THEN l.p10_hour_start
                                      ELSE k.now END
            FROM stamp s, b, clock k
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
