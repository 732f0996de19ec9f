-- Delivery stamps of large pushes, written per chunk and applied to the instances after the push.
-- Stamping a million instances rewrites a million `live_activities` rows (HOT, but still a heap update and a WAL
-- record each): measured on a million instances, 1,000 per chunk, that was 13 ms of a chunk's ~22 ms of PostgreSQL
-- time, the largest single cost of a fan-out. A push sent in batches now records one row per chunk here instead
-- (the instances it reached and its APNs timestamp), in the statement that records the chunk's counts; the rows
-- are folded into `live_activities` once the push has finished (or a minute after they were written, whichever is
-- first), by the recurring `delivery.fold_stamps` job.
-- Until then a push to the same activity name with an APNs timestamp no newer than a pending stamp folds the
-- stamps it could be skipped by before it selects its targets, so ordering is exact; `last_update_at` and
-- `last_push_id` may lag by that long.
-- The fold finds each instance by its primary key, not by where the chunk's select saw its row (`ctid`, as the
-- stamp of a single-chunk push does): reading a page through an index prunes the row versions earlier updates left
-- on it, which keeps the next update HOT. Through `ctid` nothing pruned them, pages filled up after a dozen
-- updates, and 40% of the updates had to go to other pages and into all five indexes: folding a million instances
-- by ctid took 2.5 times as long (measured, 16,000 instances per statement).
CREATE TABLE delivery_stamps (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    push_id uuid NOT NULL REFERENCES pushes (id) ON DELETE CASCADE,
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    activity_name text NOT NULL,
    apns_timestamp bigint NOT NULL,
    delivered_at timestamptz NOT NULL DEFAULT now(),
    instance_ids bigint[] NOT NULL
);
CREATE INDEX delivery_stamps_by_activity ON delivery_stamps (app_id, activity_name, apns_timestamp);
CREATE INDEX delivery_stamps_by_push ON delivery_stamps (push_id);
