#!/usr/bin/env bash
# `make bench-retention`: retention of a week of delivery history, by deleting rows (as `maintenance.retention`
# deletes what is younger than a week's partition: push operations 1,000 a statement, their pushes, batches,
# failures and counts by cascade, their start attempts first) and by dropping the week's partitions
# (`history_partitions_drop`, sql/0022). The same seeded week in two copies of one database; prints each way's time
# and the WAL it wrote.
#   PUSHES (default 50) start pushes, each with ATTEMPTS (default 20,000) start attempts and FAILURES (default 200)
#   failure rows, five weeks old.
set -euo pipefail
cd "$(dirname "$0")/.."
PUSHES=${PUSHES:-50}
ATTEMPTS=${ATTEMPTS:-20000}
FAILURES=${FAILURES:-200}
if [ -n "${BIN_DIR:-}" ]; then
    bin=$BIN_DIR
else
    swift build -c release --product gateway >/dev/null
    bin=$(swift build -c release --show-bin-path)
fi
work=$(mktemp -d /tmp/lagw-bench-retention.XXXXXX)
chmod 755 "$work"
pg_port=$(scripts/free-port.sh)
cleanup() {
    scripts/pg.sh stop "$work/pg" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
# Durable settings (no --ephemeral): the WAL written is what a production server writes.
scripts/pg.sh start "$work/pg" "$pg_port" >/dev/null
psql_() { psql -h 127.0.0.1 -p "$pg_port" -U postgres -v ON_ERROR_STOP=1 -qAt "$@"; }
DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/postgres" MIGRATIONS_DIR="${MIGRATIONS_DIR:-$PWD/sql}" \
    "$bin/gateway" migrate >/dev/null 2>"$work/migrate.log" || { cat "$work/migrate.log" >&2; exit 1; }

psql_ -d postgres <<SQL
INSERT INTO apps (app_key, name, bundle_id, app_secret_hash, master_secret_hash, apns_team_id, apns_key_id,
                  apns_environment, apns_private_key_sealed)
VALUES ('benchretentionapp00001', 'bench', 'com.example.bench', '\x00', '\x00', 'TEAM', 'KEY', 'development', '\x00');
INSERT INTO push_operations (app_id, response, created_at)
SELECT 1, '{}', now() - interval '35 days' FROM generate_series(1, $PUSHES);
INSERT INTO pushes (app_id, operation_id, event, activity_name, audience, request, apns_payload, apns_timestamp,
                    apns_priority, state, targeted, created_at, finished_at)
SELECT 1, id, 'start', 'match', '{"tag":"fans"}', '{}', '\x7b7d', 1, 10, 'done', $ATTEMPTS, created_at, created_at
FROM push_operations;
INSERT INTO push_batches (push_id, seq, targets, state, push_created_at)
SELECT p.id, s, 10000, 'done', p.created_at FROM pushes p, generate_series(0, ($ATTEMPTS - 1) / 10000) s;
INSERT INTO push_failure_counts (push_id, reason, count, push_created_at)
SELECT id, 'Unregistered', $FAILURES, created_at FROM pushes;
INSERT INTO push_failures (push_id, app_id, channel_id, token, status, reason, push_created_at)
SELECT p.id, 1, gen_random_uuid(), md5(p.id::text || g), 410, 'Unregistered', p.created_at
FROM pushes p, generate_series(1, $FAILURES) g;
INSERT INTO start_attempts (push_id, app_id, channel_id, name, attributes_type, token, window_until, push_created_at)
SELECT p.id, 1, gen_random_uuid(), 'match', 'MatchAttributes', md5(p.id::text || g), p.created_at + interval '5 minutes',
       p.created_at
FROM pushes p, generate_series(1, $ATTEMPTS) g;
SQL
psql_ -d postgres -c "CHECKPOINT" -c "VACUUM ANALYZE"
psql_ -d postgres -c "CREATE DATABASE dropping TEMPLATE postgres"

rows=$(psql_ -d postgres -c "SELECT (SELECT count(*) FROM pushes) + (SELECT count(*) FROM push_batches)
    + (SELECT count(*) FROM push_failures) + (SELECT count(*) FROM push_failure_counts)
    + (SELECT count(*) FROM start_attempts)")
echo "retention: one week of history, $PUSHES start pushes, $rows rows ($ATTEMPTS attempts and $FAILURES failures a push)"

measure() { # database, label, command...
    local db=$1 label=$2
    shift 2
    psql_ -d "$db" -c "CHECKPOINT"
    local lsn0 t0 t1 lsn1
    lsn0=$(psql_ -d "$db" -c "SELECT pg_current_wal_lsn()")
    t0=$(date +%s.%N)
    "$@"
    t1=$(date +%s.%N)
    lsn1=$(psql_ -d "$db" -c "SELECT pg_current_wal_lsn()")
    local wal left
    wal=$(psql_ -d "$db" -c "SELECT pg_size_pretty(pg_wal_lsn_diff('$lsn1', '$lsn0'))")
    left=$(psql_ -d "$db" -c "SELECT count(*) FROM pushes")
    printf '   %-40s %6.2f s, WAL %s, pushes left %s\n' "$label" "$(echo "$t1 - $t0" | bc)" "$wal" "$left"
}

delete_rows() {
    while :; do
        n=$(psql_ -d postgres -c "
            WITH old AS (SELECT id FROM push_operations WHERE created_at < now() - interval '30 days' LIMIT 1000),
            attempts AS (DELETE FROM start_attempts s USING pushes p
                         WHERE p.operation_id IN (SELECT id FROM old) AND s.push_id = p.id),
            done AS (DELETE FROM push_operations WHERE id IN (SELECT id FROM old) RETURNING 1)
            SELECT count(*) FROM done")
        [ "$n" -lt 1000 ] && break
    done
}
drop_partitions() {
    psql_ -d dropping -c "SELECT history_partitions_drop(now() - interval '30 days')" >/dev/null
    psql_ -d dropping -c "DELETE FROM push_operations WHERE created_at < now() - interval '30 days'"
}
measure postgres "deleting rows (1,000 operations a statement)" delete_rows
measure postgres "  then vacuum of the deleted rows" psql_ -d postgres -c "VACUUM"
measure dropping "dropping the week's partitions" drop_partitions
