-- A batch's chunk of targets read from one index alone (docs/design.md, "Delivery").
-- A chunk select walked `live_activities_audience` in channel order and fetched each target's row from the heap:
-- channel ids are random, so each fetch landed on another page (1,000 pages a chunk). The index now carries what a
-- batch's select reads (`INCLUDE`), and since the stamps of pushes sent in batches no longer rewrite the instances
-- (`sql/0024_pending_stamps.sql`), their pages stay all-visible after a vacuum and the select is an index-only scan:
-- 1.2 ms against 4.5 ms of execution for a chunk of 1,000 (EXPLAIN ANALYZE, 200,000 instances).
-- The cost: an update that sets one of these columns is no longer HOT and adds an entry to each index: a single-chunk
-- push's stamp, a token's rotation, and every fold of pending stamps (a push older than a pending one, apps with an
-- idle-end or renewal policy, whose jobs fold each large push: about 2.5 times the cost per instance, sql/0011). A
-- batch's select that needs the row itself (its `ctid`, to stamp an `end` in place) reads the heap as before.
-- Built in the migration's transaction: writes to `live_activities` wait while it builds (2.1 s for a million).
CREATE INDEX live_activities_targets ON live_activities (app_id, name, channel_id)
    INCLUDE (id, push_token, environment, started_at, last_apns_timestamp, last_push_seq, broadcast_channel_id)
    WHERE state = 'active';
DROP INDEX live_activities_audience;
