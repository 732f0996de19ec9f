-- Instances that pushes can reach now: active, younger than the app's maximum age, in the app's APNs environment.
-- The columns are those `live_activities` had when the view was made (sql/0003); later columns are not in it.
CREATE OR REPLACE VIEW targetable_live_activities AS
SELECT la.id,
       la.app_id,
       la.channel_id,
       la.name,
       la.attributes_type,
       la.system_activity_id,
       la.push_token,
       la.environment,
       la.state,
       la.ended_reason,
       la.invalid_reason,
       la.started_at,
       la.token_updated_at,
       la.invalidated_at,
       la.ended_at,
       la.last_update_at,
       la.last_apns_timestamp
FROM live_activities la
JOIN apps a ON a.id = la.app_id
WHERE la.state = 'active' AND la.started_at > now() - a.activity_max_age AND la.environment = a.apns_environment;
