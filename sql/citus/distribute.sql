-- Distributes the schema by app on a Citus coordinator (docs/scaling.md, "Sharding by app on Citus").
--
-- Run once, after `gateway migrate` (the migrator never reads this directory), in the coordinator's database, with
-- the `citus` extension created and the worker nodes added, in one transaction:
--   psql "$CITUS_URL" -v ON_ERROR_STOP=1 -1 -f sql/citus/distribute.sql
-- Migrations after it run on the coordinator as ever: Citus carries DDL on distributed tables to their shards.
--
-- `apps` becomes a reference table (a copy on every node, joined locally with every shard). Every tenant table is
-- distributed by `app_id`, colocated with `channels`: one app's rows live on one node, and a statement that names
-- the app runs there. Kept on the coordinator: `schema_migrations` (the migrator's), `jobs` (the queue's claim walks
-- every app with `WITH RECURSIVE` and locks with `FOR UPDATE SKIP LOCKED`, which Citus runs on one shard only) and
-- `activity_contracts` (its trigger notifies the gateways, which listen on the coordinator; its key to `apps` makes
-- it a Citus local table).

-- A foreign key to a reference table makes Citus send every later statement of the transaction over one connection
-- per node.
SET LOCAL citus.multi_shard_modify_mode TO sequential;
-- Triggers on Citus tables run on the nodes that hold the shards, and Citus creates them only when told so. The two
-- kept need nothing but their row: `live_activities_push_token_check` (a check) and `apps_changed` (a notification).
SET LOCAL citus.enable_unsafe_triggers TO on;

-- `apps_changed` fires on every copy of `apps`; the gateways listen on the coordinator, and a worker node that
-- notified could not prepare its part of the transaction (Citus commits a change to a reference table in two
-- phases): only the coordinator's copy notifies.
CREATE OR REPLACE FUNCTION notify_app_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF citus_is_coordinator() THEN
        PERFORM pg_notify('app_changed', OLD.app_key);
    END IF;
    RETURN NULL;
END;
$$;

-- The keys to `apps` go while `apps` becomes a reference table (with them, Citus would first turn every table that
-- reaches `apps` into a local table of its own), and come back after.
CREATE TEMPORARY TABLE keys_to_apps ON COMMIT DROP AS
SELECT conrelid::regclass AS tbl, conname, pg_get_constraintdef(oid) AS def
FROM pg_constraint
WHERE contype = 'f' AND confrelid = 'apps'::regclass AND conparentid = 0;

DO $$
DECLARE k record;
BEGIN
    FOR k IN SELECT * FROM keys_to_apps LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', k.tbl, k.conname);
    END LOOP;
END
$$;

SELECT create_reference_table('apps');

-- A channel's deletion deleted its start attempts by a trigger reading the deleted rows (a transition table), which
-- Citus does not run on shards: the forget and app-delete paths delete them (docs/scaling.md).
DROP TRIGGER channels_forget_start_attempts ON channels;

-- Referenced tables first; partitions follow their table.
SELECT create_distributed_table('channels', 'app_id');
SELECT create_distributed_table('push_operations', 'app_id', colocate_with => 'channels');
SELECT create_distributed_table('pushes', 'app_id', colocate_with => 'channels');
SELECT create_distributed_table(t, 'app_id', colocate_with => 'channels')
FROM unnest(ARRAY[
    'channel_tags', 'push_to_start_tokens', 'live_activities', 'push_batches', 'push_failure_counts',
    'push_failures', 'delivery_stamps', 'delivery_stamp_pushes', 'device_operations', 'start_attempts', 'schedules',
    'renewals', 'launches', 'activity_policies', 'update_budgets', 'renew_policies', 'broadcast_channels',
    'broadcast_channel_drift', 'forgotten_channels'
]) AS t;

DO $$
DECLARE k record;
BEGIN
    FOR k IN SELECT * FROM keys_to_apps LOOP
        EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I %s', k.tbl, k.conname, k.def);
    END LOOP;
END
$$;
