-- The device registry: push-to-start tokens, named live-activity instances, and the policies that age them.
--
-- Tokens are lowercase hex. Each carries the APNs environment of its app when it was registered; the worker
-- sends only to tokens of the app's current environment. A token is 'active', or 'invalid' once APNs said
-- Unregistered / BadDeviceToken / ExpiredToken (reason and time kept); registering it again makes it active.

ALTER TABLE apps
    ADD COLUMN activity_max_age interval NOT NULL DEFAULT interval '8 hours'
        CHECK (activity_max_age > interval '0'),
    ADD COLUMN registry_retention interval NOT NULL DEFAULT interval '30 days'
        CHECK (registry_retention >= interval '0');

-- One push-to-start token per (channel, attributes type); a new token replaces the old one.
CREATE TABLE push_to_start_tokens (
    channel_id uuid NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    app_id bigint NOT NULL,
    attributes_type text NOT NULL,
    token text NOT NULL CHECK (token ~ '^([0-9a-f]{2}){8,200}$'),
    environment text NOT NULL CHECK (environment IN ('production', 'development')),
    state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'invalid')),
    invalid_reason text,
    invalidated_at timestamptz,
    registered_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (channel_id, attributes_type)
);

CREATE INDEX push_to_start_tokens_audience ON push_to_start_tokens (app_id, attributes_type, channel_id)
    WHERE state = 'active';

-- Live-activity instances. At most one current (active or invalid) instance per (channel, name); ended and
-- expired ones stay as history until the retention purge.
CREATE TABLE live_activities (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id bigint NOT NULL,
    channel_id uuid NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    name text NOT NULL,
    attributes_type text NOT NULL,
    system_activity_id text NOT NULL,
    push_token text NOT NULL CHECK (push_token ~ '^([0-9a-f]{2}){8,200}$'),
    environment text NOT NULL CHECK (environment IN ('production', 'development')),
    state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'invalid', 'ended', 'expired')),
    -- untracked | replaced | reconciled | end_pushed | idle | forgotten
    ended_reason text,
    invalid_reason text,
    started_at timestamptz NOT NULL DEFAULT now(),
    token_updated_at timestamptz NOT NULL DEFAULT now(),
    invalidated_at timestamptz,
    ended_at timestamptz,
    last_update_at timestamptz,
    -- The APNs `timestamp` (epoch seconds) of the last update sent; older updates are skipped.
    last_apns_timestamp bigint,
    CHECK ((state IN ('ended', 'expired')) = (ended_at IS NOT NULL))
);

CREATE UNIQUE INDEX live_activities_current ON live_activities (channel_id, name)
    WHERE state IN ('active', 'invalid');
CREATE INDEX live_activities_audience ON live_activities (app_id, name, channel_id) WHERE state = 'active';
CREATE INDEX live_activities_system_id ON live_activities (channel_id, system_activity_id);
CREATE INDEX live_activities_purge ON live_activities (app_id, coalesce(ended_at, invalidated_at))
    WHERE state <> 'active';

-- Jobs that must exist once (maintenance runs, schedule firings) carry a key; a second enqueue is a no-op.
ALTER TABLE jobs ADD COLUMN dedupe_key text;
CREATE UNIQUE INDEX jobs_dedupe_key ON jobs (dedupe_key) WHERE dedupe_key IS NOT NULL AND state <> 'dead';

-- Dashboard view: instances that pushes can reach now (active and younger than the app's maximum age).
CREATE VIEW targetable_live_activities AS
SELECT la.*
FROM live_activities la
JOIN apps a ON a.id = la.app_id
WHERE la.state = 'active' AND la.started_at > now() - a.activity_max_age AND la.environment = a.apns_environment;

-- Dashboard view: the registry of each app at a glance.
CREATE VIEW registry_by_app AS
SELECT a.id AS app_id,
       a.app_key,
       (SELECT count(*) FROM channels c WHERE c.app_id = a.id) AS channels,
       (SELECT count(*) FROM push_to_start_tokens p WHERE p.app_id = a.id AND p.state = 'active')
           AS active_push_to_start_tokens,
       (SELECT count(*) FROM live_activities l WHERE l.app_id = a.id AND l.state = 'active') AS active_live_activities,
       (SELECT count(*) FROM live_activities l WHERE l.app_id = a.id AND l.state = 'invalid') AS invalid_live_activities
FROM apps a;
