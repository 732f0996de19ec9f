-- Starts that really start (docs/design.md, "Starts"). A push-to-start that APNs accepted is an attempt; it counts as
-- `started` when the channel registers an instance under the start's name and attributes type within the app's
-- confirmation window, else (once the window is over) as `not_started`, which the views compute from the time: no
-- job has to visit it. Attempts also carry the duplicate guard (a start for a name that is active on the channel,
-- or still inside its window, is held as `already_active`) and the start budget (at most
-- `starts_per_channel_per_hour` attempts per channel in the last hour; beyond, `start_budget`).

-- No foreign key to `pushes` (nor to `apps`): every attempt of a start would lock the one parent row for its key,
-- and the chunks of a million-token start, recorded in parallel, turned those shared locks into multixacts (a record
-- statement took 470 ms). The channel's key differs per attempt; an app's deletion cascades through its channels.
CREATE TABLE start_attempts (
    push_id uuid NOT NULL,
    app_id bigint NOT NULL,
    channel_id uuid NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    name text NOT NULL,
    attributes_type text NOT NULL,
    token text NOT NULL,
    accepted_at timestamptz NOT NULL DEFAULT now(),
    window_until timestamptz NOT NULL,
    outcome text NOT NULL DEFAULT 'pending' CHECK (outcome IN ('pending', 'started')),
    started_at timestamptz,
    PRIMARY KEY (push_id, channel_id)
);

-- The track call and the duplicate guard find pending attempts by (channel, name); the suspect check and the budget
-- read a channel's attempts by token and time (`start_attempts_by_token`, below). Each index costs every attempt
-- written: a million-token start writes a million.
CREATE INDEX start_attempts_pending ON start_attempts (channel_id, name) WHERE outcome = 'pending';

ALTER TABLE apps
    ADD COLUMN start_confirm_window interval NOT NULL DEFAULT interval '10 minutes'
        CHECK (start_confirm_window > interval '0'),
    ADD COLUMN starts_per_channel_per_hour integer NOT NULL DEFAULT 8 CHECK (starts_per_channel_per_hour > 0);

ALTER TABLE push_batches
    ADD COLUMN already_active bigint NOT NULL DEFAULT 0,
    ADD COLUMN start_budget bigint NOT NULL DEFAULT 0;

-- Suspect push-to-start tokens: a token whose last `suspect_after_starts` starts (since it was last registered) were
-- accepted and none started is `suspect`, computed from its attempts; starts skip it when `skip_suspect_tokens`
-- (held as `suspect_token`). Registering it again (even unchanged) clears it.
ALTER TABLE push_to_start_tokens ADD COLUMN registered_again_at timestamptz NOT NULL DEFAULT now();

ALTER TABLE apps
    ADD COLUMN suspect_after_starts integer NOT NULL DEFAULT 3 CHECK (suspect_after_starts > 0),
    ADD COLUMN skip_suspect_tokens boolean NOT NULL DEFAULT true;

ALTER TABLE push_batches ADD COLUMN suspect_token bigint NOT NULL DEFAULT 0;

CREATE INDEX start_attempts_by_token ON start_attempts (channel_id, token, accepted_at);

-- The update budget: per app and attributes type (`attributes_type` '' for the app's default), at most this many
-- priority-10 updates per instance per hour; beyond, an update goes at priority 5 (`downgraded`). Each instance
-- counts its priority-10 updates in a rolling hour that starts with the first one (only where a budget applies).
CREATE TABLE update_budgets (
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    attributes_type text NOT NULL,
    priority_10_per_hour integer NOT NULL CHECK (priority_10_per_hour > 0),
    PRIMARY KEY (app_id, attributes_type)
);

ALTER TABLE live_activities
    ADD COLUMN p10_hour_start timestamptz,
    ADD COLUMN p10_count integer NOT NULL DEFAULT 0;

ALTER TABLE push_batches ADD COLUMN downgraded bigint NOT NULL DEFAULT 0;

-- The views gain the broadcast columns (0013) and the start counts at their end (CREATE OR REPLACE VIEW may only
-- append columns).
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
CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE t.outcome = 'started') AS started,
           count(*) FILTER (WHERE t.outcome = 'pending' AND t.window_until <= now()) AS not_started,
           count(*) FILTER (WHERE t.outcome = 'pending' AND t.window_until > now()) AS pending
    FROM start_attempts t
    WHERE t.push_id = p.id AND p.event = 'start'
) s;

CREATE OR REPLACE VIEW push_stats_hourly AS
SELECT r.app_id,
       r.app_key,
       date_trunc('hour', r.created_at) AS hour,
       count(*) AS pushes,
       sum(r.targeted) AS targeted,
       sum(r.sent) AS sent,
       sum(r.accepted) AS accepted,
       sum(r.failed) AS failed,
       sum(r.skipped) AS skipped,
       sum(r.canceled) AS canceled,
       sum(r.superseded) AS superseded,
       count(*) FILTER (WHERE r.delivery <> 'tokens') AS broadcasts,
       count(*) FILTER (WHERE r.broadcast_status = 200) AS broadcasts_accepted,
       count(*) FILTER (WHERE r.broadcast_status IS NOT NULL AND r.broadcast_status <> 200) AS broadcasts_failed,
       sum(r.already_active) AS already_active,
       sum(r.start_budget) AS start_budget,
       sum(r.started) AS started,
       sum(r.not_started) AS not_started,
       sum(r.suspect_token) AS suspect_token,
       sum(r.downgraded) AS downgraded
FROM push_report r
GROUP BY r.app_id, r.app_key, date_trunc('hour', r.created_at);

-- Dashboard view: each start push, how many of its accepted starts became activities.
CREATE VIEW start_report AS
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
           AS start_rate
FROM push_report r
WHERE r.event = 'start';

-- Dashboard view: starts per app per hour (by push creation time).
CREATE VIEW start_report_hourly AS
SELECT app_id,
       app_key,
       date_trunc('hour', created_at) AS hour,
       count(*) AS pushes,
       sum(accepted) AS accepted,
       sum(started) AS started,
       sum(not_started) AS not_started,
       sum(already_active) AS already_active,
       sum(start_budget) AS start_budget,
       sum(suspect_token) AS suspect_token,
       CASE WHEN sum(started + not_started) > 0 THEN round(sum(started)::numeric / sum(started + not_started), 4) END
           AS start_rate
FROM start_report
GROUP BY app_id, app_key, date_trunc('hour', created_at);

