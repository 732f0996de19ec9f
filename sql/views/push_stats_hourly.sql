-- Per app per hour (by push creation time): the sums of push_report.
CREATE OR REPLACE VIEW push_stats_hourly AS
SELECT r.app_id,
       r.app_key,
       date_trunc('hour', r.created_at) AS hour,
       count(*) AS pushes,
       sum(r.targeted) AS targeted,
       sum(r.sent) AS sent,
       sum(r.accepted) AS accepted,
       sum(r.failed) AS failed,
       sum(r.skipped) AS skipped,
       sum(r.canceled) AS canceled,
       sum(r.superseded) AS superseded,
       count(*) FILTER (WHERE r.delivery <> 'tokens') AS broadcasts,
       count(*) FILTER (WHERE r.broadcast_status = 200) AS broadcasts_accepted,
       count(*) FILTER (WHERE r.broadcast_status IS NOT NULL AND r.broadcast_status <> 200) AS broadcasts_failed,
       sum(r.already_active) AS already_active,
       sum(r.start_budget) AS start_budget,
       sum(r.started) AS started,
       sum(r.not_started) AS not_started,
       sum(r.suspect_token) AS suspect_token,
       sum(r.downgraded) AS downgraded
FROM push_report r
GROUP BY r.app_id, r.app_key, date_trunc('hour', r.created_at);
