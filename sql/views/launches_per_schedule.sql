-- Launches per schedule (Teak's "which reminder brought players back").
CREATE OR REPLACE VIEW launches_per_schedule AS
SELECT l.app_id, l.schedule_id, s.name AS schedule_name, count(*) AS launches, max(l.launched_at) AS last_launch
FROM launches l
LEFT JOIN schedules s ON s.id = l.schedule_id AND s.app_id = l.app_id
GROUP BY l.app_id, l.schedule_id, s.name;
