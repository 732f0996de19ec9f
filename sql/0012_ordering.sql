-- Ordering per instance (docs/design.md, "Order on the device").
-- Apple: "If this is older than a previous update or push payload, the system ignores this update" (the `timestamp`
-- field of a Live Activity payload). An equal timestamp is applied, so of the payloads with the greatest timestamp
-- the last one received wins; timestamps are seconds, so two pushes posted in one second tie.
--
-- A push's place in that order is its key (apns_timestamp, seq): `seq` is the order in which pushes were accepted.
-- Every instance remembers the key of the last push that reached it (`last_push_seq` beside `last_apns_timestamp`),
-- so a push is skipped where a newer one has already been sent.
--
-- Superseding: a push that starts while an older push of the same app and name is unfinished (queued or sending)
-- appends its id to the older push's `superseded_by`; the older push sends nothing more to the targets the newer one
-- reaches (counted `superseded`). Every batch row carries the count of superseding pushes it must honour
-- (`superseded_gen`) and, for the chunk it is about to send, the count it did honour (`sending_gen`) until when
-- (`sending_until`, a lease). The newer push waits until no batch of an older push has a chunk in flight that was
-- chosen before it was superseded, so a device never receives older content after newer content.

ALTER TABLE pushes
    ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY,
    ADD COLUMN superseded_by uuid[] NOT NULL DEFAULT '{}';

-- The unfinished pushes of a name: what a starting push compares itself with.
CREATE INDEX pushes_unfinished_by_name ON pushes (app_id, activity_name)
    WHERE state IN ('queued', 'sending') AND event <> 'start';

ALTER TABLE push_batches
    ADD COLUMN superseded bigint NOT NULL DEFAULT 0,
    ADD COLUMN superseded_gen integer NOT NULL DEFAULT 0,
    ADD COLUMN sending_gen integer NOT NULL DEFAULT 0,
    ADD COLUMN sending_until timestamptz;

ALTER TABLE live_activities ADD COLUMN last_push_seq bigint;

ALTER TABLE delivery_stamps ADD COLUMN push_seq bigint NOT NULL DEFAULT 0;

-- The views gain `superseded` at their end (CREATE OR REPLACE VIEW may only append columns).
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
       b.superseded
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
       sum(r.superseded) AS superseded
FROM push_report r
GROUP BY r.app_id, r.app_key, date_trunc('hour', r.created_at);
