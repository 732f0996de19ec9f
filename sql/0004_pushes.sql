-- Pushes (Airship Push API v3), their fan-out batches, outcomes and the dashboards' views.

-- One POST to /api/push is an operation; it may hold several pushes. With an Idempotency-Key, a repeat of the
-- POST finds the operation and answers what the first one answered.
CREATE TABLE push_operations (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    idempotency_key text,
    response jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX push_operations_idempotency ON push_operations (app_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

-- A push: its request, the APNs body encoded once, and its counters.
--   targeted: tokens the audience resolved to; sent: requests that got an answer from APNs (or a transport error);
--   accepted / failed: APNs' verdicts; skipped: not sent because the instance already had a newer update;
--   canceled: targets dropped by DELETE or by a stop.
CREATE TABLE pushes (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    operation_id uuid NOT NULL REFERENCES push_operations (id) ON DELETE CASCADE,
    event text NOT NULL CHECK (event IN ('start', 'update', 'end')),
    activity_name text,
    attributes_type text,
    audience jsonb NOT NULL,
    request jsonb NOT NULL,
    apns_payload bytea NOT NULL,
    apns_timestamp bigint NOT NULL,
    apns_priority smallint NOT NULL CHECK (apns_priority IN (5, 10)),
    campaign_categories text[] NOT NULL DEFAULT '{}',
    state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sending', 'done', 'failed', 'canceled')),
    failure_reason text,
    batches_total integer,
    batches_done integer NOT NULL DEFAULT 0,
    targeted bigint NOT NULL DEFAULT 0,
    sent bigint NOT NULL DEFAULT 0,
    accepted bigint NOT NULL DEFAULT 0,
    failed bigint NOT NULL DEFAULT 0,
    skipped bigint NOT NULL DEFAULT 0,
    canceled bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    started_at timestamptz,
    finished_at timestamptz
);

CREATE INDEX pushes_by_app_time ON pushes (app_id, created_at);

-- The fan-out splits a push's audience into batches by channel id: (lower, upper]. A batch records how far it
-- got (cursor), so that a batch taken over after a crash resumes instead of starting again.
CREATE TABLE push_batches (
    push_id uuid NOT NULL REFERENCES pushes (id) ON DELETE CASCADE,
    seq integer NOT NULL,
    lower_channel uuid,
    upper_channel uuid,
    cursor_channel uuid,
    targets integer NOT NULL,
    processed integer NOT NULL DEFAULT 0,
    state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'done', 'stopped')),
    -- A push that fits in one chunk is sent by its fan-out job (no batch job): one job hop less for single updates.
    sent_by_fanout boolean NOT NULL DEFAULT false,
    PRIMARY KEY (push_id, seq)
);

-- Failures by APNs reason (or transport error), per push: dashboards and GET /api/pushes/{id}.
CREATE TABLE push_failure_counts (
    push_id uuid NOT NULL REFERENCES pushes (id) ON DELETE CASCADE,
    reason text NOT NULL,
    count bigint NOT NULL,
    PRIMARY KEY (push_id, reason)
);

-- One row per failed delivery (the token is kept for support; purged with the push).
CREATE TABLE push_failures (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    push_id uuid NOT NULL REFERENCES pushes (id) ON DELETE CASCADE,
    app_id bigint NOT NULL,
    channel_id uuid NOT NULL,
    token text NOT NULL,
    status integer,
    reason text NOT NULL,
    failed_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX push_failures_by_push ON push_failures (push_id);

-- Dashboard view: one row per push.
CREATE VIEW push_report AS
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
       extract(epoch FROM p.finished_at - p.created_at) AS seconds_to_finish
FROM pushes p
JOIN apps a ON a.id = p.app_id;

-- Dashboard view: per app per hour (by push creation time).
CREATE VIEW push_stats_hourly AS
SELECT p.app_id,
       a.app_key,
       date_trunc('hour', p.created_at) AS hour,
       count(*) AS pushes,
       sum(p.targeted) AS targeted,
       sum(p.sent) AS sent,
       sum(p.accepted) AS accepted,
       sum(p.failed) AS failed,
       sum(p.skipped) AS skipped,
       sum(p.canceled) AS canceled
FROM pushes p
JOIN apps a ON a.id = p.app_id
GROUP BY p.app_id, a.app_key, date_trunc('hour', p.created_at);
