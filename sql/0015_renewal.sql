-- Renewal past Apple's 8 hours (docs/design.md, "Starts"). Apple ends an activity 8 hours after it started. With a
-- `renew_policies` entry for its attributes type (or the app's default, ''), an active instance older than
-- `after_seconds` that had an update within the last hour is renewed once: an `end` dismissed at once and a
-- push-to-start of the same name (`restart`), with the attributes it was started with and the content state of its
-- latest update. The device registers the new activity, which replaces the old instance. A renewal that does not
-- start within the app's confirmation window is reported (`renewal_report`), not tried again.

CREATE TABLE renew_policies (
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    attributes_type text NOT NULL,
    after_seconds integer NOT NULL CHECK (after_seconds > 0),
    alert_title text NOT NULL,
    alert_body text NOT NULL,
    PRIMARY KEY (app_id, attributes_type)
);

-- What a device said the activity was started with (the track call's `attributes`), for its renewal.
ALTER TABLE live_activities
    ADD COLUMN attributes jsonb,
    ADD COLUMN renewal_id bigint;

CREATE TABLE renewals (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    channel_id uuid NOT NULL,
    instance_id bigint NOT NULL,
    name text NOT NULL,
    end_push_id uuid NOT NULL,
    start_push_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX renewals_by_app ON renewals (app_id, created_at);

-- Dashboard view: each renewal and what became of its start.
CREATE VIEW renewal_report AS
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
                           FROM pushes p WHERE p.id = r.start_push_id), 'not_sent') END AS outcome
FROM renewals r
JOIN apps a ON a.id = r.app_id
LEFT JOIN start_attempts s ON s.push_id = r.start_push_id AND s.channel_id = r.channel_id;
