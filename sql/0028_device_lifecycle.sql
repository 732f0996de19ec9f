-- The device's word on its instances (issue 45, part 4; docs/api.md, "Device API").
--
-- `DELETE /api/channels/{id}/live-activities/{name}` may name the instance (`system_activity_id`), say how it ended
-- on the device (`reason` ended|dismissed, ActivityKit's ActivityState `.ended` and `.dismissed`) and when (`at`).
-- `device_ended_at`: when the device saw the instance end, for an instance whose end the device reported while the
-- gateway still tracked it (the gateway's own `ended_at` stays the time it stopped tracking it). `dismissed_at`: when
-- the device reported it dismissed (removed from the Lock Screen), also for an instance that had already ended.
ALTER TABLE live_activities
    ADD COLUMN device_ended_at timestamptz,
    ADD COLUMN dismissed_at timestamptz,
    -- The start push whose push-to-start this instance confirmed (set when it is tracked; nil for instances the app
    -- started itself).
    ADD COLUMN start_push_id uuid;

-- A start's report reads the ended instances it created (counts and lifetimes): the index holds ended instances of
-- starts only, so tracking (the hot path) writes no entry, and each report reads only what ended.
CREATE INDEX live_activities_ended_by_start ON live_activities (start_push_id)
    WHERE start_push_id IS NOT NULL AND state IN ('ended', 'expired');

-- `Idempotency-Key` on the device calls that create (`POST .../live-activities/{name}/updates`,
-- `POST .../launches`): the first successful answer per (app, channel, route, key), written in the transaction of the
-- write it answers, so a retry answers it again and writes nothing. The channel's forget deletes its rows (and the
-- cascade does, for an app's deletion); `maintenance.retention` ages them out with the app's `registry_retention`.
CREATE TABLE device_operations (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id bigint NOT NULL,
    channel_id uuid NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    route text NOT NULL CHECK (route IN ('activity_update', 'launch')),
    idempotency_key text NOT NULL,
    response jsonb,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX device_operations_key ON device_operations (app_id, channel_id, route, idempotency_key);
CREATE INDEX device_operations_by_app_time ON device_operations (app_id, created_at);

-- The reports gain the device's ends at their end (CREATE OR REPLACE VIEW may only append columns). For a start:
-- of the instances it created that have ended, how many (`ended`), how many by the device's report
-- (`ended_on_device`), how many the device reported dismissed (`dismissed`), and their lifetimes in seconds (start to
-- the device's end, else to the gateway's): median, 90th percentile, longest.
CREATE OR REPLACE VIEW push_report AS
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
       extract(epoch FROM b.first_request_at - p.created_at) AS seconds_to_first_request,
       b.superseded,
       p.delivery,
       p.broadcast_channel_id,
       p.broadcast_status,
       p.broadcast_reason,
       p.apns_unique_id,
       p.broadcast_sent_at,
       extract(epoch FROM p.broadcast_sent_at - p.created_at) AS seconds_to_broadcast,
       b.already_active,
       b.start_budget,
       s.started,
       s.not_started,
       s.pending AS start_pending,
       b.suspect_token,
       b.downgraded,
       e.ended AS starts_ended,
       e.ended_on_device AS starts_ended_on_device,
       e.dismissed AS starts_dismissed,
       e.lifetime_median_seconds,
       e.lifetime_p90_seconds,
       e.lifetime_max_seconds
FROM pushes p
JOIN apps a ON a.id = p.app_id
CROSS JOIN LATERAL (
    SELECT coalesce(sum(x.sent), 0)::bigint AS sent,
           coalesce(sum(x.accepted), 0)::bigint AS accepted,
           coalesce(sum(x.failed), 0)::bigint AS failed,
           coalesce(sum(x.skipped), 0)::bigint AS skipped,
           coalesce(sum(x.canceled), 0)::bigint AS canceled,
           min(x.first_request_at) AS first_request_at,
           coalesce(sum(x.superseded), 0)::bigint AS superseded,
           coalesce(sum(x.already_active), 0)::bigint AS already_active,
           coalesce(sum(x.start_budget), 0)::bigint AS start_budget,
           coalesce(sum(x.suspect_token), 0)::bigint AS suspect_token,
           coalesce(sum(x.downgraded), 0)::bigint AS downgraded
    FROM push_batches x
    WHERE x.push_id = p.id
) b
LEFT JOIN LATERAL (
    SELECT CASE WHEN p.starts_settled_at IS NOT NULL THEN p.starts_started
                ELSE (SELECT count(*) FROM start_attempts t WHERE t.push_id = p.id AND t.outcome = 'started') END
               AS started,
           p.finished_at IS NOT NULL AND p.finished_at + a.start_confirm_window <= now() AS closed
    WHERE p.event = 'start'
) c ON true
CROSS JOIN LATERAL (
    SELECT coalesce(c.started, 0) AS started,
           CASE WHEN p.starts_settled_at IS NOT NULL THEN p.starts_not_started
                WHEN c.closed THEN greatest(b.accepted - c.started, 0)
                ELSE 0 END AS not_started,
           CASE WHEN c.closed OR c.started IS NULL THEN 0 ELSE greatest(b.accepted - c.started, 0) END AS pending
) s
LEFT JOIN LATERAL (
    SELECT count(*) AS ended,
           count(*) FILTER (WHERE l.device_ended_at IS NOT NULL) AS ended_on_device,
           count(*) FILTER (WHERE l.dismissed_at IS NOT NULL) AS dismissed,
           round(percentile_cont(0.5) WITHIN GROUP (ORDER BY l.lifetime)::numeric, 3) AS lifetime_median_seconds,
           round(percentile_cont(0.9) WITHIN GROUP (ORDER BY l.lifetime)::numeric, 3) AS lifetime_p90_seconds,
           round(max(l.lifetime)::numeric, 3) AS lifetime_max_seconds
    FROM (
        SELECT x.device_ended_at, x.dismissed_at,
               greatest(extract(epoch FROM coalesce(x.device_ended_at, x.ended_at) - x.started_at), 0)::float8
                   AS lifetime
        FROM live_activities x
        WHERE x.start_push_id = p.id AND x.state IN ('ended', 'expired') AND p.event = 'start'
    ) l
) e ON true;

CREATE OR REPLACE VIEW start_report AS
SELECT r.push_id,
       r.app_id,
       r.app_key,
       r.activity_name,
       r.attributes_type,
       r.created_at,
       r.accepted,
       r.started,
       r.not_started,
       r.start_pending,
       r.already_active,
       r.start_budget,
       r.suspect_token,
       CASE WHEN r.started + r.not_started > 0 THEN round(r.started::numeric / (r.started + r.not_started), 4) END
           AS start_rate,
       r.starts_ended AS ended,
       r.starts_ended_on_device AS ended_on_device,
       r.starts_dismissed AS dismissed,
       r.lifetime_median_seconds,
       r.lifetime_p90_seconds,
       r.lifetime_max_seconds
FROM push_report r
WHERE r.event = 'start';

CREATE OR REPLACE VIEW start_report_hourly AS
SELECT app_id,
       app_key,
       date_trunc('hour', created_at) AS hour,
       count(*) AS pushes,
       sum(accepted) AS accepted,
       sum(started) AS started,
       sum(not_started) AS not_started,
       sum(already_active) AS already_active,
       sum(start_budget) AS start_budget,
       sum(suspect_token) AS suspect_token,
       CASE WHEN sum(started + not_started) > 0 THEN round(sum(started)::numeric / sum(started + not_started), 4) END
           AS start_rate,
       sum(ended) AS ended,
       sum(ended_on_device) AS ended_on_device,
       sum(dismissed) AS dismissed
FROM start_report
GROUP BY app_id, app_key, date_trunc('hour', created_at);
