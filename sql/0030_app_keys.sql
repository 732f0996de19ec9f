-- Every key carries the app (issue 49; docs/scaling.md, "Sharding by app on Citus").
--
-- Citus spreads a table over nodes by one column, `app_id`, and requires every unique index of a distributed table,
-- and every foreign key between two, to include it. Here on every install, so that one set of statements serves one
-- PostgreSQL and Citus alike: `app_id` is appended to each key that lacks it (last, so that the lookups by id,
-- channel or push keep their index prefix), the foreign keys between tenant tables gain it, and the two tables
-- without the app (`push_batches`, `push_failure_counts`) get it from their push. What Citus alone needs (reference
-- and distributed tables) is sql/citus/distribute.sql, run once by hand on a Citus coordinator.

-- 1. The app on the push's batches and failure counts.
ALTER TABLE push_batches ADD COLUMN app_id bigint;
UPDATE push_batches b SET app_id = p.app_id
FROM pushes p WHERE p.id = b.push_id AND p.created_at = b.push_created_at;
ALTER TABLE push_batches ALTER COLUMN app_id SET NOT NULL;

ALTER TABLE push_failure_counts ADD COLUMN app_id bigint;
UPDATE push_failure_counts f SET app_id = p.app_id
FROM pushes p WHERE p.id = f.push_id AND p.created_at = f.push_created_at;
ALTER TABLE push_failure_counts ALTER COLUMN app_id SET NOT NULL;

-- 2. The foreign keys between tenant tables go (their referenced keys change below).
ALTER TABLE channel_tags DROP CONSTRAINT channel_tags_channel_id_fkey;
ALTER TABLE device_operations DROP CONSTRAINT device_operations_channel_id_fkey;
ALTER TABLE launches DROP CONSTRAINT launches_channel_id_fkey;
ALTER TABLE live_activities DROP CONSTRAINT live_activities_channel_id_fkey;
ALTER TABLE push_to_start_tokens DROP CONSTRAINT push_to_start_tokens_channel_id_fkey;
ALTER TABLE schedules DROP CONSTRAINT schedules_channel_id_fkey;
ALTER TABLE push_batches DROP CONSTRAINT push_batches_push_id_push_created_at_fkey;
ALTER TABLE push_failure_counts DROP CONSTRAINT push_failure_counts_push_id_push_created_at_fkey;
ALTER TABLE push_failures DROP CONSTRAINT push_failures_push_id_push_created_at_fkey;
ALTER TABLE pushes DROP CONSTRAINT pushes_operation_id_fkey;

-- 3. The keys, each with the app appended.
ALTER TABLE channels DROP CONSTRAINT channels_pkey, ADD PRIMARY KEY (id, app_id);
ALTER TABLE channel_tags DROP CONSTRAINT channel_tags_pkey, ADD PRIMARY KEY (channel_id, tag_group, tag, app_id);
ALTER TABLE push_to_start_tokens DROP CONSTRAINT push_to_start_tokens_pkey,
    ADD PRIMARY KEY (channel_id, attributes_type, app_id);
ALTER TABLE live_activities DROP CONSTRAINT live_activities_pkey, ADD PRIMARY KEY (id, app_id);
DROP INDEX live_activities_current;
CREATE UNIQUE INDEX live_activities_current ON live_activities (channel_id, name, app_id)
    WHERE state IN ('active', 'invalid');
ALTER TABLE push_operations DROP CONSTRAINT push_operations_pkey, ADD PRIMARY KEY (id, app_id);
ALTER TABLE pushes DROP CONSTRAINT pushes_pkey, ADD PRIMARY KEY (id, created_at, app_id);
ALTER TABLE push_batches DROP CONSTRAINT push_batches_pkey, ADD PRIMARY KEY (push_id, seq, push_created_at, app_id);
ALTER TABLE push_failure_counts DROP CONSTRAINT push_failure_counts_pkey,
    ADD PRIMARY KEY (push_id, reason, push_created_at, app_id);
ALTER TABLE push_failures DROP CONSTRAINT push_failures_pkey, ADD PRIMARY KEY (id, push_created_at, app_id);
ALTER TABLE delivery_stamps DROP CONSTRAINT delivery_stamps_pkey, ADD PRIMARY KEY (id, app_id);
ALTER TABLE delivery_stamp_pushes DROP CONSTRAINT delivery_stamp_pushes_pkey, ADD PRIMARY KEY (push_id, app_id);
ALTER TABLE device_operations DROP CONSTRAINT device_operations_pkey, ADD PRIMARY KEY (id, app_id);
ALTER TABLE start_attempts DROP CONSTRAINT start_attempts_pkey,
    ADD PRIMARY KEY (push_id, channel_id, push_created_at, app_id);
ALTER TABLE schedules DROP CONSTRAINT schedules_pkey, ADD PRIMARY KEY (id, app_id);
ALTER TABLE renewals DROP CONSTRAINT renewals_pkey, ADD PRIMARY KEY (id, app_id);
ALTER TABLE launches DROP CONSTRAINT launches_pkey, ADD PRIMARY KEY (id, launched_at, app_id);

-- 4. The foreign keys again, through the app.
ALTER TABLE channel_tags ADD FOREIGN KEY (channel_id, app_id) REFERENCES channels (id, app_id) ON DELETE CASCADE;
ALTER TABLE device_operations ADD FOREIGN KEY (channel_id, app_id)
    REFERENCES channels (id, app_id) ON DELETE CASCADE;
ALTER TABLE launches ADD FOREIGN KEY (channel_id, app_id) REFERENCES channels (id, app_id) ON DELETE CASCADE;
ALTER TABLE live_activities ADD FOREIGN KEY (channel_id, app_id) REFERENCES channels (id, app_id) ON DELETE CASCADE;
ALTER TABLE push_to_start_tokens ADD FOREIGN KEY (channel_id, app_id)
    REFERENCES channels (id, app_id) ON DELETE CASCADE;
ALTER TABLE schedules ADD FOREIGN KEY (channel_id, app_id) REFERENCES channels (id, app_id) ON DELETE CASCADE;
ALTER TABLE push_batches ADD FOREIGN KEY (push_id, push_created_at, app_id)
    REFERENCES pushes (id, created_at, app_id) ON DELETE CASCADE;
ALTER TABLE push_failure_counts ADD FOREIGN KEY (push_id, push_created_at, app_id)
    REFERENCES pushes (id, created_at, app_id) ON DELETE CASCADE;
ALTER TABLE push_failures ADD FOREIGN KEY (push_id, push_created_at, app_id)
    REFERENCES pushes (id, created_at, app_id) ON DELETE CASCADE;
ALTER TABLE pushes ADD FOREIGN KEY (operation_id, app_id) REFERENCES push_operations (id, app_id) ON DELETE CASCADE;
