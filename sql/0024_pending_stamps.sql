-- Deferred delivery stamps stay where they are: no fold after every push (docs/design.md, "Deferred stamps").
-- Folding a million stamps into `live_activities` was a heap update per instance: 6.7-8.2 s of PostgreSQL CPU after
-- every large push, whatever else the machine had to do. The stamps of a push sent in batches now stay pending, and
-- readers merge them where they need an instance's last push:
-- - a push older than a pending stamp folds the stamps that could make it skip an instance before it selects (as
--   before: the only reader that must see them in the row, and a rare one);
-- - a channel lookup (`last_update_at`) and a tap's attribution (`last_push_id`) look up the one pending row of
--   each pending push whose channel range holds the instance;
-- - apps with an idle-end or a renewal policy fold their stamps before those jobs read the rows (as before).
-- The pending rows of a push are dropped once a newer push of the same name that left pending rows too has finished
-- (the instances it did not reach are stamped), and folded once the name has no active instance left.
--
-- Each row now says which channel ids its chunk covered, [first_channel, last_channel], and each push with pending
-- rows has one row in `delivery_stamp_pushes`: a lookup probes one index range per pending push of the name.
ALTER TABLE delivery_stamps ADD COLUMN first_channel uuid, ADD COLUMN last_channel uuid;
UPDATE delivery_stamps s
SET first_channel = (SELECT l.channel_id FROM live_activities l WHERE l.id = ANY(s.instance_ids) ORDER BY 1 LIMIT 1),
    last_channel = (SELECT l.channel_id FROM live_activities l WHERE l.id = ANY(s.instance_ids) ORDER BY 1 DESC LIMIT 1);
DELETE FROM delivery_stamps WHERE first_channel IS NULL;  -- none of its instances is left
ALTER TABLE delivery_stamps ALTER COLUMN first_channel SET NOT NULL, ALTER COLUMN last_channel SET NOT NULL;

DROP INDEX delivery_stamps_by_push;
CREATE INDEX delivery_stamps_by_push ON delivery_stamps (push_id, last_channel, first_channel);

CREATE TABLE delivery_stamp_pushes (
    push_id uuid PRIMARY KEY,
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    activity_name text NOT NULL,
    apns_timestamp bigint NOT NULL,
    push_seq bigint NOT NULL
);
CREATE INDEX delivery_stamp_pushes_by_activity ON delivery_stamp_pushes (app_id, activity_name);
INSERT INTO delivery_stamp_pushes (push_id, app_id, activity_name, apns_timestamp, push_seq)
SELECT DISTINCT ON (push_id) push_id, app_id, activity_name, apns_timestamp, push_seq FROM delivery_stamps;
