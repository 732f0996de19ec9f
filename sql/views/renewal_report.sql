-- Each renewal and what became of its start.
CREATE OR REPLACE VIEW renewal_report AS
SELECT r.id AS renewal_id,
       r.app_id,
       a.app_key,
       r.channel_id,
       r.name,
       r.instance_id,
       r.end_push_id,
       r.start_push_id,
       r.created_at,
       CASE WHEN s.outcome = 'started' THEN 'started'
            WHEN s.outcome = 'pending' AND s.window_until <= now() THEN 'not_started'
            WHEN s.outcome = 'pending' THEN 'pending'
            ELSE coalesce((SELECT CASE WHEN p.state IN ('queued', 'sending') THEN 'sending' ELSE 'not_sent' END
                           FROM pushes p WHERE p.id = r.start_push_id AND p.app_id = r.app_id), 'not_sent') END AS outcome
FROM renewals r
JOIN apps a ON a.id = r.app_id
LEFT JOIN start_attempts s ON s.push_id = r.start_push_id AND s.channel_id = r.channel_id AND s.app_id = r.app_id;
