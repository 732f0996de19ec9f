-- Each schedule with what its push did.
CREATE OR REPLACE VIEW schedule_report AS
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
       (SELECT count(*) FROM launches l WHERE l.schedule_id = s.id AND l.app_id = s.app_id) AS launches
FROM schedules s
LEFT JOIN push_report r ON r.push_id = s.push_id AND r.app_id = s.app_id;
