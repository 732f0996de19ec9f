-- Each start push: how many of its accepted starts became activities, and what became of those.
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
