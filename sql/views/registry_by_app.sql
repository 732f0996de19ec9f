-- The registry of each app at a glance.
CREATE OR REPLACE VIEW registry_by_app AS
SELECT a.id AS app_id,
       a.app_key,
       (SELECT count(*) FROM channels c WHERE c.app_id = a.id) AS channels,
       (SELECT count(*) FROM push_to_start_tokens p WHERE p.app_id = a.id AND p.state = 'active')
           AS active_push_to_start_tokens,
       (SELECT count(*) FROM live_activities l WHERE l.app_id = a.id AND l.state = 'active') AS active_live_activities,
       (SELECT count(*) FROM live_activities l WHERE l.app_id = a.id AND l.state = 'invalid') AS invalid_live_activities
FROM apps a;
