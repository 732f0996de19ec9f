-- Each app's broadcast channels, their last push and the instances tracked on them.
CREATE OR REPLACE VIEW broadcast_channel_report AS
SELECT c.app_id,
       a.app_key,
       c.environment,
       c.name,
       c.channel_id,
       c.storage,
       c.created_at,
       c.last_push_at,
       (SELECT count(*) FROM live_activities l
        WHERE l.app_id = c.app_id AND l.broadcast_channel_id = c.channel_id AND l.state = 'active')
           AS tracked_instances
FROM broadcast_channels c
JOIN apps a ON a.id = c.app_id;
