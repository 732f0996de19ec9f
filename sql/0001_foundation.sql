-- Tenants and the job queue.

-- An app is a tenant. Secrets are salted SHA-256 (salt || digest); the APNs key is AES-GCM sealed
-- under the operator's master key and bound to the app key. Neither is ever selected for a client.
CREATE TABLE apps (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_key text NOT NULL UNIQUE CHECK (app_key ~ '^[A-Za-z0-9_-]{22}$'),
    name text NOT NULL,
    bundle_id text NOT NULL,
    app_secret_hash bytea NOT NULL,
    master_secret_hash bytea NOT NULL,
    apns_team_id text NOT NULL,
    apns_key_id text NOT NULL,
    apns_environment text NOT NULL CHECK (apns_environment IN ('production', 'development')),
    apns_private_key_sealed bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    secrets_rotated_at timestamptz NOT NULL DEFAULT now()
);

-- The work queue. A claimed job is 'running' and its run_at is the end of its lease, so one
-- predicate (state in queued/running, run_at <= now()) finds both due jobs and expired leases.
-- app_id 0 is the system (maintenance) tenant; a deleted app's jobs are deleted with it.
CREATE TABLE jobs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind text NOT NULL,
    app_id bigint NOT NULL DEFAULT 0,
    payload jsonb NOT NULL DEFAULT '{}'::jsonb,
    priority smallint NOT NULL DEFAULT 0,
    state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'dead')),
    run_at timestamptz NOT NULL DEFAULT now(),
    attempts integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL DEFAULT 8 CHECK (max_attempts > 0),
    lease_owner text,
    last_error text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX jobs_claimable_by_app ON jobs (app_id, priority DESC, run_at) WHERE state IN ('queued', 'running');
CREATE INDEX jobs_claimable_by_time ON jobs (run_at) WHERE state IN ('queued', 'running');
CREATE INDEX jobs_dead ON jobs (kind, updated_at) WHERE state = 'dead';

-- Idle workers LISTEN on jobs_ready; any insert wakes them (one notification per transaction).
CREATE FUNCTION jobs_notify_ready() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('jobs_ready', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER jobs_notify_ready AFTER INSERT ON jobs FOR EACH STATEMENT EXECUTE FUNCTION jobs_notify_ready();

-- Dashboard view: how much work waits, by kind and state.
CREATE VIEW queue_depth AS
SELECT kind,
       state,
       count(*) AS jobs,
       count(*) FILTER (WHERE state = 'queued' AND run_at <= now()) AS due_now,
       min(run_at) FILTER (WHERE state = 'queued') AS next_run_at
FROM jobs
GROUP BY kind, state;
