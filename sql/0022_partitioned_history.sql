-- The delivery history, partitioned by week (docs/scaling.md, "Partitioning by time"): `pushes` by `created_at`;
-- its batches, failure rows, failure counts and start attempts by a new `push_created_at` (their push's
-- `created_at`), on the same bounds, so that a push and its rows go together; `launches` by `launched_at`.
-- Retention then drops a week's partitions instead of deleting its rows one by one (`history_partitions_drop`).
--
-- Declarative partitioning, no extension: weekly partitions named `<table>_pYYYYMMDD` (the Monday, UTC), made a
-- few weeks ahead by `history_partitions_ensure` (the migration, then `maintenance.retention`), and a default
-- partition per table so that an insert never fails if that job stalls for weeks (rows there are deleted by
-- retention's batched delete; a week whose rows sit in the default is not made until they are gone).
--
-- Keys include the partition key, as PostgreSQL requires: `pushes` (id, created_at); the children refer to it by
-- (push_id, push_created_at). Identity columns become sequences (partitioned tables take identities from
-- PostgreSQL 17 on). The views are re-created from their own definitions, bound to the new tables.

CREATE FUNCTION history_week(t timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS $$ SELECT date_trunc('week', t AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' $$;

-- Makes the weekly partitions from the week of `since` to `weeks_ahead` weeks after this one. Returns how many it made.
CREATE FUNCTION history_partitions_ensure(since timestamptz, weeks_ahead integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    week timestamptz;
    t text;
    part text;
    made integer := 0;
BEGIN
    FOR week IN
        SELECT generate_series(history_week(least(since, now())),
                               history_week(now()) + make_interval(hours => 168 * weeks_ahead),
                               interval '168 hours')
    LOOP
        FOREACH t IN ARRAY ARRAY['pushes', 'push_batches', 'push_failure_counts', 'push_failures', 'start_attempts',
                                 'launches'] LOOP
            part := t || '_p' || to_char(week AT TIME ZONE 'UTC', 'YYYYMMDD');
            CONTINUE WHEN to_regclass(part) IS NOT NULL;
            BEGIN
                EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)%s', part, t, week,
                               week + interval '168 hours',
                               CASE WHEN t IN ('pushes', 'push_batches') THEN ' WITH (fillfactor = 70)' ELSE '' END);
                made := made + 1;
            EXCEPTION WHEN check_violation THEN
                -- Rows of that week sit in the default partition (this job did not run in time): retention's
                -- batched delete empties it; the week is made on a later run.
                RAISE WARNING 'partition % not made: its rows are in %_default', part, t;
            END;
        END LOOP;
    END LOOP;
    RETURN made;
END
$$;

-- Detaches and drops every weekly partition wholly older than `older_than` (a week of pushes only once none of
-- them is queued or sending; a push's rows go first, then the push). Returns how many weeks went.
CREATE FUNCTION history_partitions_drop(older_than timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    p record;
    week timestamptz;
    t text;
    part text;
    dropped integer := 0;
BEGIN
    FOR p IN
        SELECT DISTINCT substring(c.relname FROM '_p([0-9]{8})$') AS day
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent IN ('pushes'::regclass, 'launches'::regclass) AND c.relname ~ '_p[0-9]{8}$'
        ORDER BY 1
    LOOP
        week := p.day::date::timestamp AT TIME ZONE 'UTC';
        EXIT WHEN week + interval '168 hours' > older_than;
        CONTINUE WHEN EXISTS (SELECT 1 FROM pushes WHERE created_at >= week AND created_at < week + interval '168 hours'
                                                     AND state IN ('queued', 'sending'));
        FOREACH t IN ARRAY ARRAY['start_attempts', 'push_failures', 'push_failure_counts', 'push_batches', 'pushes',
                                 'launches'] LOOP
            part := t || '_p' || p.day;
            CONTINUE WHEN to_regclass(part) IS NULL;
            EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', t, part);
            EXECUTE format('DROP TABLE %I', part);
        END LOOP;
        dropped := dropped + 1;
    END LOOP;
    RETURN dropped;
END
$$;

-- The views' definitions, read before their tables are renamed, to bind them to the new tables afterwards.
CREATE TEMPORARY TABLE history_views ON COMMIT DROP AS
SELECT c.relname AS name, pg_get_viewdef(c.oid) AS definition
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'v' AND n.nspname = current_schema();

ALTER TABLE delivery_stamps DROP CONSTRAINT delivery_stamps_push_id_fkey;
ALTER TABLE pushes RENAME TO history_old_pushes;
ALTER TABLE push_batches RENAME TO history_old_push_batches;
ALTER TABLE push_failure_counts RENAME TO history_old_push_failure_counts;
ALTER TABLE push_failures RENAME TO history_old_push_failures;
ALTER TABLE start_attempts RENAME TO history_old_start_attempts;
ALTER TABLE launches RENAME TO history_old_launches;

CREATE SEQUENCE history_pushes_seq;
SELECT setval('history_pushes_seq', greatest((SELECT last_value FROM pushes_seq_seq), 1));
CREATE SEQUENCE history_push_failures_id;
SELECT setval('history_push_failures_id', greatest((SELECT last_value FROM push_failures_id_seq), 1));
CREATE SEQUENCE history_launches_id;
SELECT setval('history_launches_id', greatest((SELECT last_value FROM launches_id_seq), 1));

CREATE TABLE pushes (LIKE history_old_pushes INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (created_at);
ALTER TABLE pushes ALTER COLUMN seq SET DEFAULT nextval('history_pushes_seq');
ALTER SEQUENCE history_pushes_seq OWNED BY pushes.seq;

CREATE TABLE push_batches (LIKE history_old_push_batches INCLUDING DEFAULTS INCLUDING CONSTRAINTS,
                           push_created_at timestamptz NOT NULL) PARTITION BY RANGE (push_created_at);
CREATE TABLE push_failure_counts (LIKE history_old_push_failure_counts INCLUDING DEFAULTS INCLUDING CONSTRAINTS,
                                  push_created_at timestamptz NOT NULL) PARTITION BY RANGE (push_created_at);
CREATE TABLE push_failures (LIKE history_old_push_failures INCLUDING DEFAULTS INCLUDING CONSTRAINTS,
                            push_created_at timestamptz NOT NULL) PARTITION BY RANGE (push_created_at);
ALTER TABLE push_failures ALTER COLUMN id SET DEFAULT nextval('history_push_failures_id');
ALTER SEQUENCE history_push_failures_id OWNED BY push_failures.id;
CREATE TABLE start_attempts (LIKE history_old_start_attempts INCLUDING DEFAULTS INCLUDING CONSTRAINTS,
                             push_created_at timestamptz NOT NULL) PARTITION BY RANGE (push_created_at);
CREATE TABLE launches (LIKE history_old_launches INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE (launched_at);
ALTER TABLE launches ALTER COLUMN id SET DEFAULT nextval('history_launches_id');
ALTER SEQUENCE history_launches_id OWNED BY launches.id;

CREATE TABLE pushes_default PARTITION OF pushes DEFAULT WITH (fillfactor = 70);
CREATE TABLE push_batches_default PARTITION OF push_batches DEFAULT WITH (fillfactor = 70);
CREATE TABLE push_failure_counts_default PARTITION OF push_failure_counts DEFAULT;
CREATE TABLE push_failures_default PARTITION OF push_failures DEFAULT;
CREATE TABLE start_attempts_default PARTITION OF start_attempts DEFAULT;
CREATE TABLE launches_default PARTITION OF launches DEFAULT;

SELECT history_partitions_ensure(
    least((SELECT min(created_at) FROM history_old_pushes), (SELECT min(launched_at) FROM history_old_launches), now()),
    3);

INSERT INTO pushes SELECT * FROM history_old_pushes;
INSERT INTO push_batches SELECT b.*, p.created_at FROM history_old_push_batches b JOIN pushes p ON p.id = b.push_id;
INSERT INTO push_failure_counts
SELECT f.*, p.created_at FROM history_old_push_failure_counts f JOIN pushes p ON p.id = f.push_id;
INSERT INTO push_failures SELECT f.*, p.created_at FROM history_old_push_failures f JOIN pushes p ON p.id = f.push_id;
-- An attempt whose push is gone has nothing to confirm: it stays behind.
INSERT INTO start_attempts SELECT s.*, p.created_at FROM history_old_start_attempts s JOIN pushes p ON p.id = s.push_id;
INSERT INTO launches SELECT * FROM history_old_launches;

DO $$
DECLARE
    v record;
BEGIN
    FOR v IN SELECT name, definition FROM history_views LOOP
        EXECUTE format('CREATE OR REPLACE VIEW %I AS %s', v.name, v.definition);
    END LOOP;
END
$$;

DROP TABLE history_old_start_attempts, history_old_push_failures, history_old_push_failure_counts,
    history_old_push_batches, history_old_pushes, history_old_launches;

ALTER TABLE pushes ADD PRIMARY KEY (id, created_at);
ALTER TABLE pushes ADD FOREIGN KEY (app_id) REFERENCES apps (id) ON DELETE CASCADE;
ALTER TABLE pushes ADD FOREIGN KEY (operation_id) REFERENCES push_operations (id) ON DELETE CASCADE;
CREATE INDEX pushes_by_app_time ON pushes (app_id, created_at);
CREATE INDEX pushes_by_operation ON pushes (operation_id);
CREATE INDEX pushes_starts_unsettled ON pushes (finished_at)
    WHERE event = 'start' AND starts_settled_at IS NULL AND finished_at IS NOT NULL;
CREATE INDEX pushes_unfinished_by_name ON pushes (app_id, activity_name)
    WHERE state IN ('queued', 'sending') AND event <> 'start';

ALTER TABLE push_batches ADD PRIMARY KEY (push_id, seq, push_created_at);
ALTER TABLE push_batches ADD FOREIGN KEY (push_id, push_created_at) REFERENCES pushes (id, created_at)
    ON DELETE CASCADE;
ALTER TABLE push_failure_counts ADD PRIMARY KEY (push_id, reason, push_created_at);
ALTER TABLE push_failure_counts ADD FOREIGN KEY (push_id, push_created_at) REFERENCES pushes (id, created_at)
    ON DELETE CASCADE;
ALTER TABLE push_failures ADD PRIMARY KEY (id, push_created_at);
ALTER TABLE push_failures ADD FOREIGN KEY (push_id, push_created_at) REFERENCES pushes (id, created_at)
    ON DELETE CASCADE;
CREATE INDEX push_failures_by_push ON push_failures (push_id);
CREATE INDEX push_failures_by_channel ON push_failures (channel_id);

-- Still no foreign key (sql/0016): a start writes an attempt per device, and each would probe `pushes`.
ALTER TABLE start_attempts ADD PRIMARY KEY (push_id, channel_id, push_created_at);
CREATE INDEX start_attempts_by_channel ON start_attempts (channel_id, window_until);
CREATE INDEX start_attempts_started ON start_attempts (push_id) WHERE outcome = 'started';

ALTER TABLE launches ADD PRIMARY KEY (id, launched_at);
ALTER TABLE launches ADD FOREIGN KEY (app_id) REFERENCES apps (id) ON DELETE CASCADE;
ALTER TABLE launches ADD FOREIGN KEY (channel_id) REFERENCES channels (id) ON DELETE CASCADE;
CREATE INDEX launches_by_app_time ON launches (app_id, launched_at);
CREATE INDEX launches_by_schedule ON launches (schedule_id) WHERE schedule_id IS NOT NULL;
