-- Starts per app per hour (by push creation time): the sums of start_report.
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
