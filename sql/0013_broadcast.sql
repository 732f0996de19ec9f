-- Broadcast Live Activities (iOS 18 channels) under the same names (docs/design.md, "Broadcast channels").
-- A name may have one broadcast channel per app and APNs environment. A push to the name goes by broadcast, by
-- per-activity tokens, or both (`pushes.delivery`, decided when the push is accepted); instances a device tracks
-- as subscribed to the channel need no token.

CREATE TABLE broadcast_channels (
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    environment text NOT NULL CHECK (environment IN ('production', 'development')),
    name text NOT NULL,
    -- Apple's id: base64 of no fixed length.
    channel_id text NOT NULL,
    storage text NOT NULL CHECK (storage IN ('none', 'latest')),
    created_at timestamptz NOT NULL DEFAULT now(),
    last_push_at timestamptz,
    -- Broadcasts to one channel go out one at a time, oldest accepted first: the push sending holds the lease.
    sending_seq bigint,
    sending_until timestamptz,
    last_sent_seq bigint,
    PRIMARY KEY (app_id, environment, name),
    UNIQUE (app_id, environment, channel_id)
);

-- Channels with no push and no tracked instance for this long are deleted at Apple and here; Apple-only channels
-- found by the reconcile job are deleted only when the app opts in (other systems may share the bundle id).
ALTER TABLE apps
    ADD COLUMN broadcast_idle_after interval NOT NULL DEFAULT interval '24 hours'
        CHECK (broadcast_idle_after > interval '0'),
    ADD COLUMN broadcast_delete_unknown boolean NOT NULL DEFAULT false;

-- What the last reconcile found: channels only one side knows.
CREATE TABLE broadcast_channel_drift (
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    environment text NOT NULL,
    channel_id text NOT NULL,
    side text NOT NULL CHECK (side IN ('apple_only', 'local_only')),
    deleted_at_apple boolean NOT NULL DEFAULT false,
    seen_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, environment, channel_id)
);

-- An instance subscribed to its name's channel (iOS 18) may be tracked without a per-activity token.
ALTER TABLE live_activities
    ALTER COLUMN push_token DROP NOT NULL,
    ADD COLUMN broadcast_channel_id text,
    ADD CONSTRAINT live_activities_reachable CHECK (push_token IS NOT NULL OR broadcast_channel_id IS NOT NULL);

CREATE INDEX live_activities_by_broadcast_channel ON live_activities (app_id, broadcast_channel_id)
    WHERE broadcast_channel_id IS NOT NULL AND state = 'active';

-- How each push went out, and its broadcast's answer.
ALTER TABLE pushes
    ADD COLUMN delivery text NOT NULL DEFAULT 'tokens' CHECK (delivery IN ('tokens', 'broadcast', 'both')),
    ADD COLUMN broadcast_channel_id text,
    ADD COLUMN broadcast_status integer,
    ADD COLUMN broadcast_reason text,
    ADD COLUMN apns_unique_id text,
    ADD COLUMN broadcast_sent_at timestamptz,
    ADD COLUMN apns_expiration bigint,
    DROP CONSTRAINT pushes_apns_priority_check,
    ADD CONSTRAINT pushes_apns_priority_check CHECK (apns_priority IN (1, 5, 10)),
    ADD CONSTRAINT pushes_broadcast_has_channel CHECK ((delivery = 'tokens') = (broadcast_channel_id IS NULL));

-- The views gain the broadcast columns at their end (CREATE OR REPLACE VIEW may only append columns).
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
       extract(epoch FROM p.broadcast_sent_at - p.created_at) AS seconds_to_broadcast
FROM pushes p
JOIN apps a ON a.id = p.app_id
CROSS JOIN LATERAL (
    SELECT coalesce(sum(x.sent), 0)::bigint AS sent,
           coalesce(sum(x.accepted), 0)::bigint AS accepted,
           coalesce(sum(x.failed), 0)::bigint AS failed,
           coalesce(sum(x.skipped), 0)::bigint AS skipped,
           coalesce(sum(x.canceled), 0)::bigint AS canceled,
           min(x.first_request_at) AS first_request_at,
           coalesce(sum(x.superseded), 0)::bigint AS superseded
    FROM push_batches x
    WHERE x.push_id = p.id
) b;

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
       count(*) FILTER (WHERE r.broadcast_status IS NOT NULL AND r.broadcast_status <> 200) AS broadcasts_failed
FROM push_report r
GROUP BY r.app_id, r.app_key, date_trunc('hour', r.created_at);

-- Dashboard view: each app's broadcast channels, their last push and the instances tracked on them.
CREATE VIEW broadcast_channel_report AS
SELECT c.app_id,
       a.app_key,
       c.environment,
       c.name,
       c.channel_id,
       c.storage,
       c.created_at,
       c.last_push_at,
       (SELECT count(*) FROM live_activities l
        WHERE l.app_id = c.app_id AND l.broadcast_channel_id = c.channel_id AND l.state = 'active')
           AS tracked_instances
FROM broadcast_channels c
JOIN apps a ON a.id = c.app_id;
