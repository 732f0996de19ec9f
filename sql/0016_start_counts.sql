-- Start counts that cost nothing to read, and settle once (docs/design.md, "Starts").
--
-- Until now the push report counted a start's attempts row by row on every read: a million-token start cost ~330 ms
-- per `GET /api/pushes/{id}`. Now `started` is counted from a partial index over the confirmed attempts only, and
-- the rest follow from `accepted` (every accepted start is an attempt): `pending` while the push's window is open,
-- `not_started` once it closed. A push's window closes the app's `start_confirm_window` after the push finished
-- (its last attempt's own window can end no later). `maintenance.start_settle` then writes the final counts on the
-- push (`starts_settled_at`), the report reads them from there, and the worker counts them in
-- `worker_starts_total{outcome}` exactly once.

CREATE INDEX start_attempts_started ON start_attempts (push_id) WHERE outcome = 'started';

ALTER TABLE pushes
    ADD COLUMN starts_started bigint,
    ADD COLUMN starts_not_started bigint,
    ADD COLUMN starts_settled_at timestamptz;

CREATE INDEX pushes_starts_unsettled ON pushes (finished_at)
    WHERE event = 'start' AND starts_settled_at IS NULL AND finished_at IS NOT NULL;

-- One index finds a channel's attempts for every probe, by the end of their window: those still open (the duplicate
-- guard, the track call's confirmation), of the last hour (the budget: an attempt accepted within the hour has a
-- window ending after it), since a registration (suspect tokens, the latest first). It replaces two wider ones, one
-- of which carried the token: a million-token start wrote a million entries into each.
DROP INDEX start_attempts_pending;
DROP INDEX start_attempts_by_token;
CREATE INDEX start_attempts_by_channel ON start_attempts (channel_id, window_until);

-- The foreign key to `channels` locked each attempt's channel row (FOR KEY SHARE) as the attempt was written: a
-- million-token start dirtied a million channel rows. A statement trigger removes a deleted channel's attempts
-- instead (a forget, an app's deletion), as the cascade did.
ALTER TABLE start_attempts DROP CONSTRAINT start_attempts_channel_id_fkey;

CREATE FUNCTION forget_start_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM start_attempts s USING gone g WHERE s.channel_id = g.id;
    RETURN NULL;
END;
$$;

CREATE TRIGGER channels_forget_start_attempts AFTER DELETE ON channels
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION forget_start_attempts();

-- Renewal candidates by app and age (`maintenance.renew` runs every 10 s; without it each run read every activity).
CREATE INDEX live_activities_renewal ON live_activities (app_id, started_at)
    WHERE state = 'active' AND renewal_id IS NULL;

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
       b.sent,
       b.accepted,
       b.failed,
       b.skipped,
       p.canceled + b.canceled AS canceled,
       coalesce((SELECT jsonb_object_agg(f.reason, f.count) FROM push_failure_counts f WHERE f.push_id = p.id),
                '{}'::jsonb) AS failed_by_reason,
       p.created_at,
       p.started_at,
       p.finished_at,
       extract(epoch FROM p.finished_at - p.created_at) AS seconds_to_finish,
       b.first_request_at,
       extract(epoch FROM b.first_request_at - p.created_at) AS seconds_to_first_request,
       b.superseded,
       p.delivery,
       p.broadcast_channel_id,
       p.broadcast_status,
       p.broadcast_reason,
       p.apns_unique_id,
       p.broadcast_sent_at,
       extract(epoch FROM p.broadcast_sent_at - p.created_at) AS seconds_to_broadcast,
       b.already_active,
       b.start_budget,
       s.started,
       s.not_started,
       s.pending AS start_pending,
       b.suspect_token,
       b.downgraded
FROM pushes p
JOIN apps a ON a.id = p.app_id
CROSS JOIN LATERAL (
    SELECT coalesce(sum(x.sent), 0)::bigint AS sent,
           coalesce(sum(x.accepted), 0)::bigint AS accepted,
           coalesce(sum(x.failed), 0)::bigint AS failed,
           coalesce(sum(x.skipped), 0)::bigint AS skipped,
           coalesce(sum(x.canceled), 0)::bigint AS canceled,
           min(x.first_request_at) AS first_request_at,
           coalesce(sum(x.superseded), 0)::bigint AS superseded,
           coalesce(sum(x.already_active), 0)::bigint AS already_active,
           coalesce(sum(x.start_budget), 0)::bigint AS start_budget,
           coalesce(sum(x.suspect_token), 0)::bigint AS suspect_token,
           coalesce(sum(x.downgraded), 0)::bigint AS downgraded
    FROM push_batches x
    WHERE x.push_id = p.id
) b
LEFT JOIN LATERAL (
    SELECT CASE WHEN p.starts_settled_at IS NOT NULL THEN p.starts_started
                ELSE (SELECT count(*) FROM start_attempts t WHERE t.push_id = p.id AND t.outcome = 'started') END
               AS started,
           p.finished_at IS NOT NULL AND p.finished_at + a.start_confirm_window <= now() AS closed
    WHERE p.event = 'start'
) c ON true
CROSS JOIN LATERAL (
    SELECT coalesce(c.started, 0) AS started,
           CASE WHEN p.starts_settled_at IS NOT NULL THEN p.starts_not_started
                WHEN c.closed THEN greatest(b.accepted - c.started, 0)
                ELSE 0 END AS not_started,
           CASE WHEN c.closed OR c.started IS NULL THEN 0 ELSE greatest(b.accepted - c.started, 0) END AS pending
) s;
