-- How much work waits, by kind and state.
CREATE OR REPLACE VIEW queue_depth AS
SELECT kind,
       state,
       count(*) AS jobs,
       count(*) FILTER (WHERE state = 'queued' AND run_at <= now()) AS due_now,
       min(run_at) FILTER (WHERE state = 'queued') AS next_run_at
FROM jobs
GROUP BY kind, state;
