-- One row per push. The delivery counters are the sums of its batches' (sql/0009): targeted, the tokens the audience
-- resolved to; sent, requests that got an answer from APNs (or a transport error); accepted / failed, APNs' verdicts;
-- skipped, not sent because the instance already had a newer update; canceled, targets dropped by a DELETE or a stop;
-- superseded, targets a newer push of the same name reached first (sql/0012). Times in seconds from the push's
-- creation: to its end, to its first APNs request (the worker's clock, sql/0008), to its broadcast (sql/0013).
-- A start's counts (sql/0014, 0016): started, not_started once its confirmation window closed (the settled counts
-- once `maintenance.start_settle` wrote them), start_pending while it is open; of the instances it created that
-- ended, how many (by the device's report, dismissed) and their lifetimes, start to the device's end else the
-- gateway's (sql/0028).
-- Columns are only ever appended: dashboards read them by name.
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
       coalesce(r.failed_by_reason, '{}'::jsonb) AS failed_by_reason,
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
    WHERE x.push_id = p.id AND x.app_id = p.app_id
) b
LEFT JOIN LATERAL (
    SELECT jsonb_object_agg(f.reason, f.count) AS failed_by_reason
    FROM push_failure_counts f
    WHERE f.push_id = p.id AND f.app_id = p.app_id
) r ON true
LEFT JOIN LATERAL (
    SELECT CASE WHEN p.starts_settled_at IS NOT NULL THEN p.starts_started ELSE count(*) END AS started,
           p.finished_at IS NOT NULL AND p.finished_at + a.start_confirm_window <= now() AS closed
    FROM start_attempts t
    WHERE t.push_id = p.id AND t.app_id = p.app_id AND t.outcome = 'started' AND p.starts_settled_at IS NULL
    HAVING p.event = 'start'
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
        WHERE x.start_push_id = p.id AND x.app_id = p.app_id AND x.state IN ('ended', 'expired') AND p.event = 'start'
    ) l
) e ON true;
