-- A push's delivery counters move from its own row to its batches' rows. Every chunk of a fan-out used to add its
-- counts to the one `pushes` row, so the chunk transactions of every worker queued for that row's lock (measured in
-- a million-target fan-out: 6.6 s of statement time over 1,063 calls, for ~1 ms of work). Each batch has one
-- worker at a time, so its row takes its chunks' counts without waiting for anyone. Readers sum the batches:
-- `push_report` keeps its columns, names and order; `push_stats_hourly` and `schedule_report` read it.
--
--   pushes.canceled keeps what was canceled before a fan-out existed (a DELETE of a queued push);
--   push_batches.canceled is what a batch never handed to APNs (DELETE, or a configuration error that stopped it).

ALTER TABLE push_batches
    ADD COLUMN sent bigint NOT NULL DEFAULT 0,
    ADD COLUMN accepted bigint NOT NULL DEFAULT 0,
    ADD COLUMN failed bigint NOT NULL DEFAULT 0,
    ADD COLUMN skipped bigint NOT NULL DEFAULT 0,
    ADD COLUMN canceled bigint NOT NULL DEFAULT 0,
    ADD COLUMN first_request_at timestamptz;

-- Counts recorded so far go to each push's first batch (a push with counts has batches).
UPDATE push_batches b
SET sent = p.sent, accepted = p.accepted, failed = p.failed, skipped = p.skipped, first_request_at = p.first_request_at
FROM pushes p
WHERE b.push_id = p.id AND b.seq = 0;

DROP VIEW schedule_report;
DROP VIEW push_stats_hourly;
DROP VIEW push_report;

ALTER TABLE pushes
    DROP COLUMN sent,
    DROP COLUMN accepted,
    DROP COLUMN failed,
    DROP COLUMN skipped,
    DROP COLUMN first_request_at;

-- Dashboard view: one row per push (columns as before).
CREATE VIEW push_report AS
SELECT p.id AS push_id,
       a.app_key,
       p.app_id,
       p.operation_id,
       p.event,
       p.activity_name,
       p.attributes_type,
       p.state,
       p.failure_reason,
       p.targeted,
       b.sent,
       b.accepted,
       b.failed,
       b.skipped,
       p.canceled + b.canceled AS canceled,
       coalesce((SELECT jsonb_object_agg(f.reason, f.count) FROM push_failure_counts f WHERE f.push_id = p.id),
                '{}'::jsonb) AS failed_by_reason,
       p.created_at,
       p.started_at,
       p.finished_at,
       extract(epoch FROM p.finished_at - p.created_at) AS seconds_to_finish,
       b.first_request_at,
       extract(epoch FROM b.first_request_at - p.created_at) AS seconds_to_first_request
FROM pushes p
JOIN apps a ON a.id = p.app_id
CROSS JOIN LATERAL (
    SELECT coalesce(sum(x.sent), 0)::bigint AS sent,
           coalesce(sum(x.accepted), 0)::bigint AS accepted,
           coalesce(sum(x.failed), 0)::bigint AS failed,
           coalesce(sum(x.skipped), 0)::bigint AS skipped,
           coalesce(sum(x.canceled), 0)::bigint AS canceled,
           min(x.first_request_at) AS first_request_at
    FROM push_batches x
    WHERE x.push_id = p.id
) b;

-- Dashboard view: per app per hour (by push creation time), columns as before.
CREATE VIEW push_stats_hourly AS
SELECT r.app_id,
       r.app_key,
       date_trunc('hour', r.created_at) AS hour,
       count(*) AS pushes,
       sum(r.targeted) AS targeted,
       sum(r.sent) AS sent,
       sum(r.accepted) AS accepted,
       sum(r.failed) AS failed,
       sum(r.skipped) AS skipped,
       sum(r.canceled) AS canceled
FROM push_report r
GROUP BY r.app_id, r.app_key, date_trunc('hour', r.created_at);

-- Dashboard view: each schedule with what its push did (columns as before).
CREATE VIEW schedule_report AS
SELECT s.id AS schedule_id,
       s.app_id,
       s.name,
       s.source,
       s.state,
       s.skip_reason,
       s.send_at,
       s.fired_at,
       extract(epoch FROM s.fired_at - s.send_at) AS fired_late_seconds,
       r.push_id,
       r.state AS push_state,
       r.accepted,
       r.failed,
       (SELECT count(*) FROM launches l WHERE l.schedule_id = s.id) AS launches
FROM schedules s
LEFT JOIN push_report r ON r.push_id = s.push_id;
