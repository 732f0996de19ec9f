#!/usr/bin/env bash
# `make chaos`: faults in the middle of a fan-out. Release builds of PostgreSQL's clients, one PostgreSQL, a gateway,
# two workers and the APNs simulator on this machine. Each scenario POSTs one update to N tracked activities
# (default 200,000) while another app sends a single update every 100 ms, injects its fault once a quarter of the
# tokens were accepted, and prints: tokens targeted, accepted at least once, accepted twice or more (and the most
# times one token was), pushes left unfinished, seconds from the fault's end to the fan-out done, and the other
# app's POST -> APNs request p99. The simulator's per-token counts are the ground truth.
#   SCENARIOS  which to run (default all): sigterm sigkill-one sigkill-both pg-restart pg-stop term-backends
#              apns-stall apns-goaway apns-503 net-drop overload (the last is not a fan-out: see chaos-faults.sh)
#   N, SIM_LATENCY_MS (default 30), WORKER_LEASE_SECONDS (default 10: a killed worker's batches resume after it)
#   SHED_TARGET_MS: the gateway's GATEWAY_SHED_TARGET_MS (default 20 here; 0: no shedding)
# net-drop needs root (network namespaces): PostgreSQL then runs in a namespace of its own, reached over a veth
# pair, and the fault is a tbf qdisc that passes nothing on both ends for 10 s (this kernel has no netem).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200000}
SIM_LATENCY_MS=${SIM_LATENCY_MS:-30}
export WORKER_LEASE_SECONDS=${WORKER_LEASE_SECONDS:-10}
SCENARIOS=${SCENARIOS:-sigterm sigkill-one sigkill-both pg-restart pg-stop term-backends apns-stall apns-goaway apns-503 net-drop overload}
DEADLINE=${DEADLINE:-240}
if [ -n "${BIN_DIR:-}" ]; then
    bin=$BIN_DIR
else
    for p in gateway worker apns-sim; do swift build -c release --product $p >/dev/null; done
    bin=$(swift build -c release --show-bin-path)
fi
work=$(mktemp -d /tmp/lagw-chaos.XXXXXX)
chmod 755 "$work"
pids=()
ns=lagw-chaos-$$
netns=no
# Whether a child still runs (an exited child stays a zombie until waited for, and `kill -0` would say yes).
running() { [ -e "/proc/$1" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }
cleanup() {
    for p in "${pids[@]}" ${trickle_pid:-}; do kill "$p" 2>/dev/null || true; done
    # Each process exits within its own shutdown deadline (worker 25 s, gateway 20 + 5 s); one that does not is a
    # finding, said here, and killed so that the script ends.
    local deadline=$((SECONDS + 40))
    for p in "${pids[@]}"; do
        while running "$p" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
        if running "$p"; then
            echo "!! process $p ($(tr '\0' ' ' <"/proc/$p/cmdline" | cut -c1-60)) still running 40 s after SIGTERM: killed" >&2
            kill -9 "$p" 2>/dev/null || true
        fi
    done
    wait 2>/dev/null || true
    db_ns scripts/pg.sh stop "$work/pg" >/dev/null 2>&1 || true
    if [ "$netns" = yes ]; then ip link del lagwc0-$$ 2>/dev/null || true; ip netns del "$ns" 2>/dev/null || true; fi
    [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
db_ns() { if [ "$netns" = yes ]; then ip netns exec "$ns" "$@"; else "$@"; fi; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# PostgreSQL, in a network namespace of its own when this user may make one.
pg_port=$(scripts/free-port.sh)
pg_host=127.0.0.1
veth=lagwc0-$$
if [ "$(id -u)" = 0 ] && ip netns add "$ns" 2>/dev/null; then
    netns=yes
    ip link add "$veth" type veth peer name lagwc1-$$
    ip link set lagwc1-$$ netns "$ns"
    ip addr add 10.231.0.1/30 dev "$veth" && ip link set "$veth" up
    ip netns exec "$ns" ip addr add 10.231.0.2/30 dev lagwc1-$$
    ip netns exec "$ns" ip link set lagwc1-$$ up
    ip netns exec "$ns" ip link set lo up
    pg_host=10.231.0.2
fi
PG_LISTEN="127.0.0.1,$pg_host" db_ns scripts/pg.sh start "$work/pg" "$pg_port" --ephemeral >/dev/null
echo "host all all 10.231.0.0/30 trust" >>"$work/pg/pg_hba.conf"
db_ns scripts/pg.sh reload "$work/pg"
export DATABASE_URL="postgres://postgres@$pg_host:$pg_port/postgres" MIGRATIONS_DIR="$PWD/sql"
export ADMIN_TOKEN=$(openssl rand -hex 24) MASTER_KEY=$(openssl rand -base64 32) LOG_LEVEL=warning
psql_() { psql -qAt "$DATABASE_URL" "$@"; }
psql_ -c "ALTER SYSTEM SET shared_buffers = '1GB'" >/dev/null
db_ns scripts/pg.sh restart "$work/pg"
"$bin/gateway" migrate >/dev/null

sim_port=$(scripts/free-port.sh) sim_admin=$(scripts/free-port.sh) gw_port=$(scripts/free-port.sh)
"$bin/apns-sim" --port "$sim_port" --admin-port "$sim_admin" --certificate-out "$work/ca.pem" --log-level error &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/ca.pem" ] && break; sleep 0.1; done
sim() { curl -fsS -X POST "http://127.0.0.1:$sim_admin/$1" -d "$2" >/dev/null; }
export APNS_CA_FILE="$work/ca.pem"
start_gateway() {
    GATEWAY_PORT=$gw_port DATABASE_POOL_SIZE=8 GATEWAY_SHED_TARGET_MS=${SHED_TARGET_MS:-20} "$bin/gateway" serve >>"$work/gateway.log" 2>&1 &
    pids+=($!)
}
start_gateway
declare -A worker_pid
start_worker() {  # $1: 1 or 2
    WORKER_ID="chaos-$1" WORKER_PORT=$(scripts/free-port.sh) DATABASE_POOL_SIZE=12 WORKER_CONCURRENCY=16 \
        APNS_ENDPOINT="https://127.0.0.1:$sim_port" "$bin/worker" >>"$work/worker-$1.log" 2>&1 &
    worker_pid[$1]=$!
    pids+=($!)
}
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$gw_port/readyz" >/dev/null && break; sleep 0.2; done

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/key.p8" 2>/dev/null
pem=$(awk 'BEGIN { ORS = "" } { print $0 "\\n" }' "$work/key.p8")
pub=$(openssl pkey -in "$work/key.p8" -pubout | awk 'BEGIN { ORS = "" } { print $0 "\\n" }')
sim keys "{\"team_id\":\"TEAM123456\",\"key_id\":\"KEY1234567\",\"public_key\":\"$pub\"}"
create() {
    curl -fsS -X POST "http://127.0.0.1:$gw_port/admin/apps" -H "Authorization: Bearer $ADMIN_TOKEN" \
        -H 'Content-Type: application/json' \
        -d "{\"name\":\"$1\",\"bundle_id\":\"com.example.$1\",\"apns\":{\"team_id\":\"TEAM123456\",\"key_id\":\"KEY1234567\",\"environment\":\"development\",\"private_key\":\"$pem\"}}"
}
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"; }
big=$(create big) small=$(create small)
big_auth="$(echo "$big" | field app_key):$(echo "$big" | field master_secret)"
small_auth="$(echo "$small" | field app_key):$(echo "$small" | field master_secret)"
solo_token=$(printf 'cd%.0s' $(seq 32))
psql_ <<SQL
INSERT INTO channels (app_id, install_id) SELECT a.id, 'd' || g FROM apps a, generate_series(1, $N) g WHERE a.name = 'big';
INSERT INTO live_activities (app_id, channel_id, name, attributes_type, system_activity_id, push_token, environment)
SELECT c.app_id, c.id, 'match', 'MatchAttributes', c.install_id, md5(c.install_id) || md5(c.install_id), 'development'
FROM channels c;
INSERT INTO channels (app_id, install_id) SELECT id, 'solo' FROM apps WHERE name = 'small';
INSERT INTO live_activities (app_id, channel_id, name, attributes_type, system_activity_id, push_token, environment)
SELECT c.app_id, c.id, 'solo', 'MatchAttributes', 'solo', '$solo_token', 'development' FROM channels c
WHERE c.install_id = 'solo';
VACUUM ANALYZE;
SQL
start_worker 1
start_worker 2
sleep 2
echo "== chaos: $N activities, 2 workers (lease ${WORKER_LEASE_SECONDS} s), simulator ${SIM_LATENCY_MS} ms per answer;" \
    "PostgreSQL $( [ "$netns" = yes ] && echo "in a network namespace" || echo "on loopback (not root: net-drop skipped)")"
source scripts/chaos-faults.sh

push_ts=$(( $(date +%s) - 200000 ))
post() {  # $1: auth, $2: name, $3: timestamp; prints the HTTP status and the push id
    local out="$work/post.$BASHPID"
    curl -sS -m 5 -o "$out" -w '%{http_code}' -u "$1" -H 'Content-Type: application/json' \
        "http://127.0.0.1:$gw_port/api/push" \
        -d "{\"audience\":\"all\",\"device_types\":[\"ios\"],\"notification\":{\"ios\":{\"live_activity\":{\"event\":\"update\",\"name\":\"$2\",\"content_state\":{\"n\":$3},\"timestamp\":$3}}}}" || echo -n 000
    echo " $(sed -n 's/.*"push_ids":\["\([^"]*\)".*/\1/p' "$out" 2>/dev/null)"
    rm -f "$out"
}
state_of() {
    psql_ -c "SELECT state FROM pushes WHERE id = '$1'" 2>/dev/null || echo unknown
}
accepted_total() { curl -fsS "http://127.0.0.1:$sim_admin/stats" | sed -n 's/.*"accepted":\([0-9]*\).*/\1/p'; }

printf '%-14s %8s %9s %7s %5s %10s %9s %12s %s\n' scenario targeted accepted twice+ max unfinished recovery "other p99" "(other: ok/refused)"
for scenario in $SCENARIOS; do
    if [ "$scenario" = overload ]; then overload=yes; continue; fi
    if [ "$scenario" = net-drop ] && [ "$netns" != yes ]; then
        echo "$scenario: skipped (not root: no network namespace)"; continue
    fi
    sim config "{\"record\":false,\"count_tokens\":true,\"latency_ms\":$SIM_LATENCY_MS,\"stall\":false,\"goaway_after_streams\":0,\"failure_rates\":{}}"
    sim reset '{}'
    # The other app's trickle, one update every 100 ms, each line: timestamp, status, push id.
    # Its timestamps go on rising from one scenario to the next: iOS (and the gateway) skip an older one.
    (
        t=$(cat "$work/solo.ts" 2>/dev/null || echo $(( $(date +%s) - 100000 )))
        while true; do t=$((t + 1)); echo "$t" >"$work/solo.ts"; echo "$t $(post "$small_auth" solo "$t")"; sleep 0.1; done
    ) >"$work/trickle.txt" 2>/dev/null &
    trickle_pid=$!
    push_ts=$((push_ts + 1))
    read -r status big_id <<<"$(post "$big_auth" match "$push_ts")"
    [ "$status" = 202 ] || { echo "$scenario: POST answered $status"; kill $trickle_pid; continue; }
    started=$(now)
    for _ in $(seq 1200); do [ "$(accepted_total)" -ge $((N / 4)) ] && break; sleep 0.05; done
    echo "   $scenario: POST $big_id at $started, fault at $(now) with $(accepted_total) accepted" >>"$work/notes.txt"
    "fault_${scenario//-/_}"
    fault_end=$(now)
    recovered=""
    for _ in $(seq $((DEADLINE * 5))); do
        s=$(state_of "$big_id")
        if [ "$s" = done ] || [ "$s" = failed ]; then recovered=$(since "$fault_end"); echo "   $scenario: push $s; batches $(psql_ -c "SELECT string_agg(state || ' ' || n, ', ') FROM (SELECT state, count(*) n FROM push_batches WHERE push_id = '$big_id' GROUP BY 1) b")" >>"$work/notes.txt"; break; fi
        sleep 0.2
    done
    # Whatever was caught by the fault settles (retries, leases): then the counts.
    sleep 1
    kill $trickle_pid 2>/dev/null; wait $trickle_pid 2>/dev/null || true
    trickle_pid=""
    # Pushes the trickle posted last may still be on their way: unfinished is what is left after a minute.
    for _ in $(seq 300); do [ "$(psql_ -c "SELECT count(*) FROM pushes WHERE state IN ('queued','sending')")" = 0 ] && break; sleep 0.2; done
    unfinished=$(psql_ -c "SELECT count(*) FROM pushes WHERE state IN ('queued', 'sending')")
    counts=$(curl -fsS "http://127.0.0.1:$sim_admin/stats?tokens=all" | python3 -c "
import json, sys
tokens = {k: v for k, v in json.load(sys.stdin)['tokens'].items() if k != '$solo_token'}
print(sum(1 for v in tokens.values() if v >= 1), sum(1 for v in tokens.values() if v >= 2), max(tokens.values(), default=0))")
    read -r once twice most <<<"$counts"
    ids=$(awk '$2 == 202 { printf "'"'"'%s'"'"',", $3 }' "$work/trickle.txt")
    [ -n "$ids" ] || ids="NULL,"
    refused=$(awk '$2 != 202' "$work/trickle.txt" | wc -l)
    ok=$(awk '$2 == 202' "$work/trickle.txt" | wc -l)
    p99=$(psql_ -c "SELECT round(1000 * percentile_cont(0.99) WITHIN GROUP (ORDER BY seconds_to_first_request))
                    FROM push_report WHERE push_id IN (${ids%,})" 2>/dev/null || echo "?")
    printf '%-14s %8d %9d %7d %5d %10d %9s %9s ms %s\n' "$scenario" "$N" "$once" "$twice" "$most" "$unfinished" \
        "${recovered:-none}${recovered:+ s}" "${p99:-?}" "($ok/$refused)"
done
if [ -f "$work/notes.txt" ]; then cat "$work/notes.txt"; fi
if [ "${overload:-}" = yes ]; then scenario_overload; fi
