#!/usr/bin/env bash
# `make bench-fanout`: one update to N tracked activities (default 1,000,000 on as many channels), two workers,
# the APNs simulator answering after SIM_LATENCY_MS (default 30) and advertising SIM_MAX_STREAMS (default 500);
# meanwhile another app sends single-activity updates. Release builds, one machine.
# Prints POST -> last APNs answer, split into resolve / select / send / record, the bound the round trips set, each
# process's CPU, and the other app's latencies: its single-activity updates, and its broadcasts (an update to a
# name with a broadcast channel, one request to Apple's broadcast endpoint) during the fan-out and idle after it.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-1000000}
WORKERS=${WORKERS:-2}
# The simulator at Apple's distance: each answer waits SIM_LATENCY_MS (30 ms is a typical round trip to Apple; 0 is
# an instant server, which hides what bounds a real fan-out), and it advertises SIM_MAX_STREAMS streams per
# connection (500 is the low end of what APNs is seen to advertise once a token is accepted).
SIM_LATENCY_MS=${SIM_LATENCY_MS:-30}
SIM_MAX_STREAMS=${SIM_MAX_STREAMS:-500}
# OTHER_ACTIVITIES: how many activities the other app's single updates go to, in turn (default 1). With one, each
# update waits, by the ordering rule, for the one before it to be answered; with more (a delivery app's users), the
# updates are independent, and what they wait for is CPU.
OTHER_ACTIVITIES=${OTHER_ACTIVITIES:-1}
# The workers read WORKER_BULK_NICE from the environment (their default, 5: the fan-out's threads run that many nice
# levels below the express lane's); the header says which.
# BIN_DIR: a directory holding gateway, worker and apns-sim built elsewhere (to compare two builds in one sitting).
if [ -n "${BIN_DIR:-}" ]; then
    bin=$BIN_DIR
else
    swift build -c release --product gateway >/dev/null
    swift build -c release --product worker >/dev/null
    swift build -c release --product apns-sim >/dev/null
    bin=$(swift build -c release --show-bin-path)
fi
work=$(mktemp -d /tmp/lagw-bench-fanout.XXXXXX)
chmod 755 "$work"
pg_port=$(scripts/free-port.sh)
gw_port=$(scripts/free-port.sh)
sim_port=$(scripts/free-port.sh)
sim_admin=$(scripts/free-port.sh)
sim_broadcast=$(scripts/free-port.sh)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    scripts/pg.sh stop "$work/pg" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
cpu_of() { awk '{ print ($14 + $15) / 100 }' "/proc/$1/stat"; }
# This PostgreSQL's CPU in seconds: utime + stime of its postmaster and every child, in clock ticks (`ps -o times`
# rounds each process down to whole seconds, which with a dozen backends under-counted by up to that many seconds).
pg_cpu() {
    local main
    main=$(head -n 1 "$work/pg/postmaster.pid")
    for p in $main $(pgrep -P "$main"); do cat "/proc/$p/stat" 2>/dev/null; done |
        awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); s += $12 + $13 } END { print s / hz }'
}

scripts/pg.sh start "$work/pg" "$pg_port" --ephemeral >/dev/null
export DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/postgres" MIGRATIONS_DIR="${MIGRATIONS_DIR:-$PWD/sql}"
export ADMIN_TOKEN=$(openssl rand -hex 24) MASTER_KEY=$(openssl rand -base64 32) LOG_LEVEL=warning
# pg_stat_statements (from postgresql-contrib, in the server package) says which statements PostgreSQL's time went to.
# shared_buffers as a production server would have it (a quarter of memory is the usual advice): PostgreSQL's 128 MB
# default holds a fraction of a million activities and their indexes, and every chunk then copies pages in again.
psql -q "$DATABASE_URL" -c "ALTER SYSTEM SET max_connections = 200" \
    -c "ALTER SYSTEM SET shared_buffers = '${PG_SHARED_BUFFERS:-2GB}'" \
    -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'" >/dev/null
scripts/pg.sh stop "$work/pg" && scripts/pg.sh start "$work/pg" "$pg_port" --ephemeral >/dev/null
psql -q "$DATABASE_URL" -c "CREATE EXTENSION pg_stat_statements" >/dev/null
# Planning time beside execution time: statements made unprepared are planned for every chunk.
psql -q "$DATABASE_URL" -c "ALTER SYSTEM SET pg_stat_statements.track_planning = on" -c "SELECT pg_reload_conf()" >/dev/null
"$bin/gateway" migrate >/dev/null 2>&1
"$bin/apns-sim" --port "$sim_port" --admin-port "$sim_admin" --broadcast-port "$sim_broadcast" \
    --certificate-out "$work/ca.pem" --log-level error &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/ca.pem" ] && break; sleep 0.1; done
export APNS_CA_FILE="$work/ca.pem" APNS_MANAGE_ENDPOINT="https://127.0.0.1:$sim_broadcast"
export APNS_BROADCAST_ENDPOINT="https://127.0.0.1:$sim_broadcast"
GATEWAY_PORT=$gw_port DATABASE_POOL_SIZE=8 "$bin/gateway" serve >"$work/gateway.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do curl -fs "http://127.0.0.1:$gw_port/readyz" >/dev/null && curl -fs "http://127.0.0.1:$sim_admin/stats" >/dev/null && break; sleep 0.2; done
# The other app's one activity: the simulator records its notifications, to time them where APNs would see them.
solo_token=$(printf 'cd%.0s' $(seq 32))
curl -fsS -X POST "http://127.0.0.1:$sim_admin/config" \
    -d "{\"record\":false,\"count_tokens\":false,\"record_tokens\":[\"$solo_token\"],\"latency_ms\":$SIM_LATENCY_MS,\"max_concurrent_streams\":$SIM_MAX_STREAMS}" >/dev/null
echo "== $N activities, $WORKERS workers (WORKER_BULK_NICE ${WORKER_BULK_NICE:-default}), other app's updates to $OTHER_ACTIVITIES activities; simulator: ${SIM_LATENCY_MS} ms per answer, advertises $SIM_MAX_STREAMS streams per connection"

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/key.p8" 2>/dev/null
pem=$(awk 'BEGIN { ORS = "" } { print $0 "\\n" }' "$work/key.p8")
pub=$(openssl pkey -in "$work/key.p8" -pubout | awk 'BEGIN { ORS = "" } { print $0 "\\n" }')
curl -fsS -X POST "http://127.0.0.1:$sim_admin/keys" \
    -d "{\"team_id\":\"TEAM123456\",\"key_id\":\"KEY1234567\",\"public_key\":\"$pub\"}" >/dev/null
create() {
    curl -fsS -X POST "http://127.0.0.1:$gw_port/admin/apps" -H "Authorization: Bearer $ADMIN_TOKEN" \
        -H 'Content-Type: application/json' \
        -d "{\"name\":\"$1\",\"bundle_id\":\"com.example.$1\",\"apns\":{\"team_id\":\"TEAM123456\",\"key_id\":\"KEY1234567\",\"environment\":\"development\",\"private_key\":\"$pem\"}}"
}
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"; }
big=$(create big)
small=$(create small)
big_auth="$(echo "$big" | field app_key):$(echo "$big" | field master_secret)"
small_auth="$(echo "$small" | field app_key):$(echo "$small" | field master_secret)"
live_channel=$(curl -fsS -u "$small_auth" -X PUT -H 'Content-Type: application/json' -d '{"storage":"none"}' \
    "http://127.0.0.1:$gw_port/api/broadcast-channels/live" | field channel_id)

# EVENT=start: a push-to-start to N push-to-start tokens (one per channel) instead of an update to N activities: every
# target is checked against the duplicate guard, suspect tokens and the start budget, and every accepted start
# becomes a pending confirmation (`start_attempts`).
EVENT=${EVENT:-update}
if [ "$EVENT" = start ]; then
    seed_big="INSERT INTO push_to_start_tokens (channel_id, app_id, attributes_type, token, environment)
SELECT c.id, c.app_id, 'MatchAttributes', md5(c.install_id) || md5(c.install_id), 'development' FROM channels c;"
    big_body='{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"start","name":"match","attributes_type":"MatchAttributes","attributes":{"home":"A"},"content_state":{"home":0,"away":0},"alert":{"title":"Kick-off","body":"A v B"}}}}}'
else
    seed_big="INSERT INTO live_activities (app_id, channel_id, name, attributes_type, system_activity_id, push_token, environment)
SELECT c.app_id, c.id, 'match', 'MatchAttributes', c.install_id, md5(c.install_id) || md5(c.install_id), 'development'
FROM channels c;"
    big_body='{"audience":"all","device_types":["ios"],"notification":{"ios":{"live_activity":{"event":"update","name":"match","content_state":{"home":1,"away":0,"minute":67}}}}}'
fi
echo "== seeding $N channels with a tracked activity 'match' (app big), $OTHER_ACTIVITIES activities 'solo' (app small)"
t0=$(date +%s.%N)
psql -q "$DATABASE_URL" <<SQL
INSERT INTO channels (app_id, install_id) SELECT a.id, 'd' || g FROM apps a, generate_series(1, $N) g WHERE a.name = 'big';
$seed_big
INSERT INTO channels (app_id, install_id)
SELECT id, 'solo-' || g FROM apps, generate_series(1, $OTHER_ACTIVITIES) g WHERE name = 'small';
INSERT INTO live_activities (app_id, channel_id, name, attributes_type, system_activity_id, push_token, environment)
SELECT c.app_id, c.id, 'solo', 'MatchAttributes', 'solo', '$solo_token', 'development'
FROM channels c WHERE c.install_id LIKE 'solo-%';
VACUUM ANALYZE;
SQL
# Once more a moment later, as autovacuum would have by then: the first, right after the inserts in the same
# session, leaves the pages not all-visible, and the chunk selects then read every row from the heap.
sleep 2
psql -q "$DATABASE_URL" -c "VACUUM live_activities"
psql -qAt "$DATABASE_URL" -c "
SELECT '   all-visible pages of live_activities: ' || relallvisible || ' of ' || relpages FROM pg_class
WHERE relname = 'live_activities'"
echo "   seeded in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"

# WORKER_POOL_SIZE: each worker's PostgreSQL pool for its batches (the worker's default, 4).
wpids=()
for n in $(seq "$WORKERS"); do
    wport=$(scripts/free-port.sh)
    echo "$wport" >"$work/worker-$n.port"
    WORKER_ID="bench-$n" WORKER_PORT=$wport DATABASE_POOL_SIZE=${WORKER_POOL_SIZE:-4} WORKER_CONCURRENCY=${WORKER_CONCURRENCY:-16} \
        APNS_ENDPOINT="https://127.0.0.1:$sim_port" APNS_CA_FILE="$work/ca.pem" \
        "$bin/worker" >"$work/worker-$n.log" 2>&1 &
    pids+=($!)
    wpids+=($!)
done
sleep 2
cpu_before=()
for p in "${wpids[@]}"; do cpu_before+=("$(cpu_of "$p")"); done
sim_pid=${pids[0]}
sim_before=$(cpu_of "$sim_pid")
pg_before=$(pg_cpu)

json_push_id() { sed -n 's/.*"push_ids":\["\([^"]*\)".*/\1/p'; }
# The other app's single updates carry timestamps well in the past, one a push: at most 60 s ahead is accepted,
# and they must rise.
ts=$(( $(date +%s) - 100000 ))
# An update of the other app's name $1 with timestamp $2 (audience $3, else all); prints its push id.
other_update() {
    curl -fsS -u "$small_auth" -H 'Content-Type: application/json' "http://127.0.0.1:$gw_port/api/push" \
        -d "{\"audience\":${3:-\"all\"},\"device_types\":[\"ios\"],\"notification\":{\"ios\":{\"live_activity\":{\"event\":\"update\",\"name\":\"$1\",\"content_state\":{\"n\":$2},\"timestamp\":$2}}}}" | json_push_id
}
# A single-activity update: to the only 'solo' activity, or to the next of OTHER_ACTIVITIES by its channel.
solo_channels=($(psql -qAt "$DATABASE_URL" -c "SELECT id FROM channels WHERE install_id LIKE 'solo-%' ORDER BY id"))
solo() {
    if [ "$OTHER_ACTIVITIES" = 1 ]; then
        other_update solo "$1"
    else
        other_update solo "$1" "{\"ios_channel\":\"${solo_channels[$(($1 % OTHER_ACTIVITIES))]}\"}"
    fi
}
# Updates and broadcasts of the other app before the fan-out, not counted, until every worker has sent one of each:
# an app that sends a steady flow has each worker's APNs connections open and its credentials and budgets cached, and
# a worker's first send (TLS handshakes, the key unsealed, a provider token signed) is not what the fan-out does to
# it. (With one warm-up update, the other worker's first could come in the fan-out's first 50 ms: one traced in
# PostgreSQL's log read that worker's credentials and budgets on a just-opened connection and was 43 ms late.)
sent_by_all() {
    local n port m
    for n in $(seq "$WORKERS"); do
        port=$(cat "$work/worker-$n.port")
        m=$(curl -fsS "http://127.0.0.1:$port/metrics")
        grep -q '^worker_apns_notifications_total{outcome="accepted"} [1-9]' <<<"$m" || return 1
        grep -q '^worker_apns_broadcasts_total{outcome="accepted"} [1-9]' <<<"$m" || return 1
    done
}
for _ in $(seq 20); do
    ts=$((ts + 1))
    warm_id=$(solo "$ts")
    other_update live "$ts" >/dev/null
    for _ in $(seq 50); do
        curl -fsS -u "$small_auth" "http://127.0.0.1:$gw_port/api/pushes/$warm_id" | grep -q '"state":"done"' && break
        sleep 0.1
    done
    sleep 0.2
    sent_by_all && break
done
sent_by_all || echo "   (warning: not every worker sent the other app's warm-up update and broadcast)"
psql -q "$DATABASE_URL" -c "SELECT pg_stat_statements_reset()" >/dev/null
echo "== POST one $EVENT to every 'match' target"
big_id=$(curl -fsS -u "$big_auth" -H 'Content-Type: application/json' "http://127.0.0.1:$gw_port/api/push" \
    -d "$big_body" | json_push_id)
echo "   push $big_id"

# The other app while the fan-out runs: a single-activity update every 50 ms (55-100 of them, so that their p99 is
# not just the slowest one) and a broadcast with every other one.
small_ids=()
small_ts=()
cast_ids=()
cast_ts=()
# A broadcast update of the other app's name 'live' (audience all: one request to the broadcast endpoint).
cast() {
    cast_ts+=("$1")
    cast_ids+=("$(other_update live "$1")")
}
i=0
while true; do
    # Over the API (curl), not psql: a psql per poll costs a process, a connection and a PostgreSQL backend,
    # which showed up as ~5% of the machine's CPU during the fan-out.
    if [ $((i % 2)) = 0 ]; then
        state=$(curl -fsS -u "$big_auth" "http://127.0.0.1:$gw_port/api/pushes/$big_id" | sed -n 's/.*"state":"\([a-z]*\)".*/\1/p')
        [ "$state" = "done" ] || [ "$state" = "failed" ] && break
    fi
    ts=$((ts + 1))
    small_ts+=("$ts")
    small_ids+=("$(solo "$ts")")
    if [ $((i % 2)) = 0 ]; then cast "$ts"; fi
    i=$((i + 1))
    sleep 0.05
done
busy_casts=${#cast_ids[@]}
# CPU up to the end of the push: what PostgreSQL does after it is measured on its own below.
cpu_after=()
for p in "${wpids[@]}"; do cpu_after+=("$(cpu_of "$p")"); done
sim_after=$(cpu_of "$sim_pid")
pg_after=$(pg_cpu)
psql -q "$DATABASE_URL" -c "CREATE TABLE bench_statements AS SELECT * FROM pg_stat_statements" >/dev/null
sleep 1

echo "== results"
psql -qAt "$DATABASE_URL" -F ' ' -c "
SELECT 'fan-out: ' || state || ', targeted ' || targeted || ', accepted ' || accepted || ', failed ' || failed
       || ', POST -> last APNs answer ' || round(extract(epoch FROM finished_at - created_at)::numeric, 2) || ' s'
       || ' (queue + resolve ' || round(extract(epoch FROM started_at - created_at)::numeric, 2) || ' s, then send + record '
       || round(extract(epoch FROM finished_at - started_at)::numeric, 2) || ' s)'
FROM push_report WHERE push_id = '$big_id'" | sed 's/^/   /'
echo "   simulator: $(curl -fsS "http://127.0.0.1:$sim_admin/stats")"
ids=$(printf "'%s'," "${small_ids[@]}")
# p50 / p99 / max in ms of the other app's pushes, over one of their intervals
pcts() { echo "round(1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY $1)) || ' ms, p99 '
    || round(1000 * percentile_cont(0.99) WITHIN GROUP (ORDER BY $1)) || ' ms'"; }
psql -qAt "$DATABASE_URL" -F ' ' -c "
WITH d AS (
    SELECT extract(epoch FROM finished_at - created_at) AS total, extract(epoch FROM started_at - created_at) AS claim,
           extract(epoch FROM finished_at - started_at) AS send, extract(epoch FROM first_request_at - created_at) AS first
    FROM push_report WHERE push_id IN (${ids%,}))
SELECT 'other app: ' || count(*) || ' single updates during the fan-out, POST -> APNs request: p50 '
       || $(pcts first) || ', max ' || round(1000 * max(first)) || ' ms'
       || E'\\n  POST -> APNs answer recorded: p50 ' || $(pcts total) || ', max ' || round(1000 * max(total)) || ' ms'
       || E'\\n  of which POST -> claimed and resolved: p50 ' || $(pcts claim)
       || '; then sent and recorded: p50 ' || $(pcts send)
FROM d" | sed 's/^/   /'
# The slowest three, and when each was posted: a tail made at the fan-out's start (pools opening) is not one made
# throughout.
psql -qAt "$DATABASE_URL" -c "
WITH big AS (SELECT created_at FROM pushes WHERE id = '$big_id'),
     d AS (SELECT extract(epoch FROM r.first_request_at - r.created_at) AS first,
                  extract(epoch FROM r.started_at - r.created_at) AS claim, r.created_at
           FROM push_report r WHERE r.push_id IN (${ids%,}) ORDER BY 1 DESC NULLS LAST LIMIT 3)
SELECT '  slowest: ' || string_agg(round(1000 * d.first) || ' ms (' || round(1000 * d.claim) || ' to resolve) posted at +'
       || round(extract(epoch FROM d.created_at - big.created_at)::numeric, 2) || ' s', ', ' ORDER BY d.first DESC)
FROM d, big" | sed 's/^/   /'
# The same single updates timed where APNs would see them: the simulator records when each arrived (its token is
# on the simulator's record list), and its APNs timestamp says which POST it came from.
pairs=$(for i in "${!small_ids[@]}"; do printf "(%s,'%s')," "${small_ts[$i]}" "${small_ids[$i]}"; done)
# (psql substitutes :'notes' only in what it reads from stdin, not in -c.)
psql -qAt "$DATABASE_URL" -v notes="$(curl -fsS "http://127.0.0.1:$sim_admin/notifications?token=$solo_token")" <<SQL | sed 's/^/   /'
WITH sent(ts, push_id) AS (VALUES ${pairs%,}),
     seen AS (SELECT (n -> 'body' -> 'aps' ->> 'timestamp')::bigint AS ts, (n ->> 'received_at')::float8 AS at
              FROM jsonb_array_elements(:'notes'::jsonb) n),
     d AS (SELECT seen.at - extract(epoch FROM p.created_at) AS first
           FROM sent JOIN seen USING (ts) JOIN pushes p ON p.id = sent.push_id::uuid)
SELECT '  POST -> request received by the simulator: ' || count(*) || ' of them, p50 ' || $(pcts first)
       || ', max ' || round(1000 * max(first)) || ' ms'
FROM d
SQL
echo "   phase time summed over workers (chunks run in parallel, so sums exceed wall time):"
i=0
for p in "${wpids[@]}"; do
    port=$(cat "$work/worker-$((i + 1)).port")
    curl -fsS "http://127.0.0.1:$port/metrics" | grep -E '^worker_push_phase_seconds_(sum|count)' >>"$work/phases.txt" || true
    echo "   worker $((i + 1)) CPU: $(awk -v a="${cpu_after[$i]}" -v b="${cpu_before[$i]}" 'BEGIN { printf "%.1f", a - b }') s"
    i=$((i + 1))
done
awk '{ split($1, a, "phase=\""); split(a[2], b, "\""); if ($1 ~ /_sum/) s[b[1]] += $2; else c[b[1]] += $2 }
     END { for (k in s) printf "     %-7s %8.1f s over %d runs\n", k, s[k], c[k] }' "$work/phases.txt"
echo "   simulator CPU: $(awk -v a="$sim_after" -v b="$sim_before" 'BEGIN { printf "%.1f", a - b }') s"
# Waiting on round trips: with S streams in flight at most, N answers that each take the latency need at least
# N x latency / S seconds, whatever the CPUs do.
stats=$(curl -fsS "http://127.0.0.1:$sim_admin/stats")
conns=$(echo "$stats" | sed -n 's/.*"connections_total":\([0-9]*\).*/\1/p')
streams=$(echo "$stats" | sed -n 's/.*"max_streams_in_flight":\([0-9]*\).*/\1/p')
echo "   round trips: $conns connections, at most $streams streams in flight on one;" \
    "$N x ${SIM_LATENCY_MS} ms / ($conns x $streams) = $(awk -v n="$N" -v l="$SIM_LATENCY_MS" -v c="$conns" -v s="$streams" \
        'BEGIN { if (c * s > 0) printf "%.1f", n * l / 1000 / (c * s); else print "n/a" }') s at the least"
echo "   postgres CPU: $(awk -v a="$pg_after" -v b="$pg_before" 'BEGIN { printf "%.1f", a - b }') s"
# The chunk selects read the covering index alone (sql/0025) while the instances' pages are all-visible.
psql -qAt "$DATABASE_URL" -c "
SELECT '   targets index: ' || idx_tup_read || ' entries read, ' || idx_tup_fetch || ' rows fetched from the heap'
FROM pg_stat_user_indexes WHERE indexrelname = 'live_activities_targets'"
echo "   postgres statements by total execution time, with planning time (pg_stat_statements, up to the end of the push):"
psql -qAt "$DATABASE_URL" -F ' ' -c "
SELECT lpad(round((total_exec_time / 1000)::numeric, 1)::text, 6) || ' s + plan ' || round((total_plan_time / 1000)::numeric, 1) || ' s ' || lpad(calls::text, 8) || ' calls '
       || lpad(rows::text, 9) || ' rows  ' || left(regexp_replace(query, '\s+', ' ', 'g'), 90)
FROM bench_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
ORDER BY total_exec_time DESC LIMIT 8" | sed 's/^/     /'
# A push sent in batches leaves its stamps pending in delivery_stamps (sql/0024_pending_stamps.sql): nothing is written
# to the instances after it. Measured over the 3 s after the push; then (SECOND_PUSH=1, the default) a second update of
# the same name, whose end drops the first push's rows: what it did not reach would be stamped, here nothing.
if [ "$EVENT" = update ]; then
    pg_quiet=$(pg_cpu)
    sleep 3
    psql -qAt "$DATABASE_URL" -c "
    SELECT 'deferred stamps: ' || count(*) || ' rows pending for ' || coalesce(sum(cardinality(instance_ids)), 0)
           || ' instances; ' || (SELECT count(*) FROM live_activities WHERE last_push_id = '$big_id')
           || ' instance rows stamped after the push'
    FROM delivery_stamps WHERE push_id = '$big_id'" | sed 's/^/   /'
    echo "   postgres CPU in the 3 s after the push: $(awk -v a="$(pg_cpu)" -v b="$pg_quiet" 'BEGIN { printf "%.1f", a - b }') s"
    if [ "${SECOND_PUSH:-1}" = 1 ]; then
        psql -q "$DATABASE_URL" -c "DROP TABLE IF EXISTS bench_statements" \
            -c "CREATE TABLE bench_statements AS SELECT * FROM pg_stat_statements" >/dev/null
        second_id=$(curl -fsS -u "$big_auth" -H 'Content-Type: application/json' "http://127.0.0.1:$gw_port/api/push" \
            -d "${big_body/\"minute\":67/\"minute\":68}" | json_push_id)
        for _ in $(seq 600); do
            state=$(curl -fsS -u "$big_auth" "http://127.0.0.1:$gw_port/api/pushes/$second_id" | sed -n 's/.*"state":"\([a-z]*\)".*/\1/p')
            [ "$state" = "done" ] || [ "$state" = "failed" ] && break
            sleep 0.2
        done
        pg_second=$(pg_cpu)
        for _ in $(seq 300); do
            [ "$(psql -qAt "$DATABASE_URL" -c "SELECT count(*) FROM delivery_stamp_pushes WHERE push_id = '$big_id'")" = 0 ] && break
            sleep 0.2
        done
        psql -qAt "$DATABASE_URL" -c "
        SELECT 'second update: POST -> last APNs answer ' || round(extract(epoch FROM p.finished_at - p.created_at)::numeric, 2)
               || ' s; the first push''s rows dropped ' || round(extract(epoch FROM now() - p.finished_at)::numeric, 1)
               || ' s after it finished, ' || (SELECT count(*) FROM live_activities WHERE last_push_id = '$big_id')
               || ' instances stamped from them; ' || (SELECT count(*) FROM delivery_stamps) || ' rows pending'
        FROM pushes p WHERE p.id = '$second_id'" | sed 's/^/   /'
        psql -qAt "$DATABASE_URL" -c "
        SELECT '   superseding statement: ' || round((sum(s.total_exec_time - coalesce(b.total_exec_time, 0)) / 1000)::numeric, 2)
               || ' s in ' || sum(s.calls - coalesce(b.calls, 0)) || ' calls'
        FROM pg_stat_statements s LEFT JOIN bench_statements b USING (userid, dbid, queryid)
        WHERE s.query LIKE 'WITH pending AS%'"
        echo "   postgres CPU from the end of the second push until its rows were dropped: $(awk -v a="$(pg_cpu)" -v b="$pg_second" 'BEGIN { printf "%.1f", a - b }') s"
    fi
fi
# Broadcasts: POST -> the broadcast request sent by the worker and received by the simulator, during the fan-out and
# then idle (40 more, 100 ms apart, after the fan-out: the machine is quiet again).
for _ in $(seq 40); do ts=$((ts + 1)); cast "$ts"; sleep 0.1; done
sleep 1
cast_query=$(printf %s "$live_channel" | sed -e 's/+/%2B/g' -e 's|/|%2F|g' -e 's/=/%3D/g')
cast_times() {  # $1: first index, $2: count
    local pairs
    pairs=$(for i in $(seq "$1" $(($1 + $2 - 1))); do printf "(%s,'%s')," "${cast_ts[$i]}" "${cast_ids[$i]}"; done)
    psql -qAt "$DATABASE_URL" -v notes="$(curl -fsS "http://127.0.0.1:$sim_admin/broadcasts?channel_id=$cast_query")" <<SQL
WITH sent(ts, push_id) AS (VALUES ${pairs%,}),
     seen AS (SELECT (n -> 'body' -> 'aps' ->> 'timestamp')::bigint AS ts, (n ->> 'received_at')::float8 AS at
              FROM jsonb_array_elements(:'notes'::jsonb) n),
     d AS (SELECT seen.at - extract(epoch FROM p.created_at) AS first,
                  extract(epoch FROM p.broadcast_sent_at - p.created_at) AS out
           FROM sent JOIN seen USING (ts) JOIN pushes p ON p.id = sent.push_id::uuid)
SELECT count(*) || ': sent by the worker p50 ' || $(pcts out) || '; received by the simulator p50 ' || $(pcts first)
       || ', max ' || round(1000 * max(first)) || ' ms' FROM d
SQL
}
echo "   other app's broadcasts, POST -> broadcast request:"
echo "     during the fan-out: $(cast_times 0 "$busy_casts")"
echo "     idle:               $(cast_times "$busy_casts" 40)"
if [ "$EVENT" = start ]; then
    echo "   start confirmations: $(psql -qAt "$DATABASE_URL" -c "SELECT count(*) FROM start_attempts WHERE push_id = '$big_id'") pending rows written"
fi
