-- Retention of the delivery history (docs/operations.md, "Retention"): pushes (with their batches, failures,
-- counts, stamps and start attempts), finished schedules, launches and renewals older than the app's
-- `registry_retention` (policy `retention_seconds`, default 30 days) are deleted by `maintenance.retention`.
CREATE INDEX schedules_done_by_app ON schedules (app_id, updated_at) WHERE state <> 'pending';
CREATE INDEX launches_by_app_time ON launches (app_id, launched_at);
CREATE INDEX renewals_by_app_time ON renewals (app_id, created_at);

-- A forgotten channel (GDPR): its failure rows and launches go with it, and its id is scrubbed from the audiences
-- and requests stored with pushes and schedules by the next `maintenance.retention` run (the scan of an app's
-- pushes is not made per request: a device may forget its channel). Until then its id is listed here.
CREATE INDEX push_failures_by_channel ON push_failures (channel_id);
CREATE TABLE forgotten_channels (
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    channel_id uuid NOT NULL,
    forgotten_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, channel_id)
);
