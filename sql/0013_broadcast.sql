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

-- `push_report` and `push_stats_hourly` gain the broadcast columns with the start columns in 0014 (one restatement
-- of each view for both).

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
