-- When a push's first APNs request went out: the latency a sender feels ("my update reached Apple after ..."),
-- apart from how long APNs takes to answer and how long the rest of the audience takes. The worker records the
-- instant a chunk was handed to the APNs connection with the chunk's outcome (the same UPDATE, no extra statement);
-- the earliest chunk wins, in whatever order chunks are recorded. It is the worker's clock: in a deployment whose
-- hosts are not time-synchronised, seconds_to_first_request is only as good as that.
ALTER TABLE pushes ADD COLUMN first_request_at timestamptz;

-- push_report gains the two columns at its end (CREATE OR REPLACE VIEW may only append).
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
       p.sent,
       p.accepted,
       p.failed,
       p.skipped,
       p.canceled,
       coalesce((SELECT jsonb_object_agg(f.reason, f.count) FROM push_failure_counts f WHERE f.push_id = p.id),
                '{}'::jsonb) AS failed_by_reason,
       p.created_at,
       p.started_at,
       p.finished_at,
       extract(epoch FROM p.finished_at - p.created_at) AS seconds_to_finish,
       p.first_request_at,
       extract(epoch FROM p.first_request_at - p.created_at) AS seconds_to_first_request
FROM pushes p
JOIN apps a ON a.id = p.app_id;

