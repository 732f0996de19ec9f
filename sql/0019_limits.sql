-- Limits per app, set by the operator (`PUT /admin/apps/{key}/policies`), so that no tenant can take what the
-- others need (docs/design.md, "The device edge").

-- Requests per second per credential role, per gateway process (a token bucket holding one second's worth);
-- beyond, 429 with Retry-After.
ALTER TABLE apps
    ADD COLUMN server_requests_per_second integer NOT NULL DEFAULT 500 CHECK (server_requests_per_second > 0),
    ADD COLUMN device_requests_per_second integer NOT NULL DEFAULT 10000 CHECK (device_requests_per_second > 0);

-- Quotas; beyond, 409 naming the quota. Device-scheduled updates pending per activity and per app, API schedules
-- pending per app, tags per channel.
ALTER TABLE apps
    ADD COLUMN max_pending_updates_per_activity integer NOT NULL DEFAULT 100
        CHECK (max_pending_updates_per_activity > 0),
    ADD COLUMN max_pending_updates integer NOT NULL DEFAULT 100000 CHECK (max_pending_updates > 0),
    ADD COLUMN max_schedules integer NOT NULL DEFAULT 10000 CHECK (max_schedules > 0),
    ADD COLUMN max_tags_per_channel integer NOT NULL DEFAULT 1000 CHECK (max_tags_per_channel > 0);
