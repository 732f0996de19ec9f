#!/usr/bin/env bash
# `make run`: a private PostgreSQL under .data/, migrations, the gateway, a worker and the local APNs
# simulator, a demo app, and a curl to try. Ctrl-C stops everything; a second run reuses .data/.
#
# With real APNs credentials in the environment the demo app uses them and the worker talks to Apple:
#   APNS_TEAM_ID, APNS_KEY_ID, APNS_PRIVATE_KEY_FILE (.p8), APNS_BUNDLE_ID, APNS_ENVIRONMENT (development|production)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh

PG_PORT=${PG_PORT:-55432}
GATEWAY_PORT=${GATEWAY_PORT:-8080}
WORKER_PORT=${WORKER_PORT:-9090}
SIM_PORT=${SIM_PORT:-2197}
SIM_ADMIN_PORT=${SIM_ADMIN_PORT:-9797}
SIM_BROADCAST_PORT=${SIM_BROADCAST_PORT:-2195}
data=$PWD/.data
mkdir -p "$data" "$data/logs"

echo "==> building"
# SwiftPM warns on every build that a dependency (swift-distributed-tracing) has CMakeLists.txt files its manifest does
# not declare: not ours, nothing to act on. Everything else the build says on stderr is shown.
build() {
    local output status=0
    output=$(swift build --product "$1" 2>&1 >/dev/null) || status=$?
    if [ -n "$output" ]; then
        printf '%s\n' "$output" |
            grep -v -e "^warning: 'swift-distributed-tracing': found [0-9]* file(s) which are unhandled" \
                -e '^ *[^ ]*/swift-distributed-tracing/.*/CMakeLists.txt$' >&2 || true
    fi
    return "$status"
}
build gateway
build worker
build apns-sim
bin=$(swift build --show-bin-path)

if [ ! -f "$data/secrets.env" ]; then
    umask 077
    { echo "ADMIN_TOKEN=$(openssl rand -hex 24)"; echo "MASTER_KEY=$(openssl rand -base64 32)"; } >"$data/secrets.env"
    umask 022
fi
# shellcheck disable=SC1091
. "$data/secrets.env"
export ADMIN_TOKEN MASTER_KEY

pids=()
cleanup() {
    trap - INT TERM EXIT
    echo
    echo "==> stopping"
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    scripts/pg.sh stop "$data/pg"
}
trap cleanup INT TERM EXIT

echo "==> postgres on 127.0.0.1:$PG_PORT (data in .data/pg)"
scripts/pg.sh start "$data/pg" "$PG_PORT"
psql_() { psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 -qtA "$@"; }
[ "$(psql_ -c "SELECT 1 FROM pg_database WHERE datname = 'gateway'")" = 1 ] || psql_ -c "CREATE DATABASE gateway"
export DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/gateway"
export LOG_LEVEL=${LOG_LEVEL:-info}

echo "==> migrating"
"$bin/gateway" migrate

real_apns=false
if [ -n "${APNS_TEAM_ID:-}" ] && [ -n "${APNS_KEY_ID:-}" ] && [ -n "${APNS_PRIVATE_KEY_FILE:-}" ] && [ -n "${APNS_BUNDLE_ID:-}" ]; then
    real_apns=true
fi

if [ "$real_apns" = false ]; then
    echo "==> APNs simulator on https://127.0.0.1:$SIM_PORT (broadcast API on :$SIM_BROADCAST_PORT, admin http://127.0.0.1:$SIM_ADMIN_PORT)"
    "$bin/apns-sim" --port "$SIM_PORT" --admin-port "$SIM_ADMIN_PORT" --broadcast-port "$SIM_BROADCAST_PORT" \
        --certificate-out "$data/sim-ca.pem" >"$data/logs/apns-sim.log" 2>&1 &
    pids+=($!)
    export APNS_ENDPOINT="https://127.0.0.1:$SIM_PORT" APNS_CA_FILE="$data/sim-ca.pem"
    # Apple's broadcast API (channel management and broadcast sends): the simulator serves both on one port.
    export APNS_MANAGE_ENDPOINT="https://127.0.0.1:$SIM_BROADCAST_PORT"
    export APNS_BROADCAST_ENDPOINT="https://127.0.0.1:$SIM_BROADCAST_PORT"
    # The worker must trust the certificate the simulator writes at start.
    for _ in $(seq 100); do
        curl -fs "http://127.0.0.1:$SIM_ADMIN_PORT/stats" >/dev/null 2>&1 && [ -s "$data/sim-ca.pem" ] && break
        sleep 0.2
    done
fi

echo "==> gateway on http://127.0.0.1:$GATEWAY_PORT, worker metrics on http://127.0.0.1:$WORKER_PORT"
GATEWAY_PORT=$GATEWAY_PORT "$bin/gateway" serve >"$data/logs/gateway.log" 2>&1 &
pids+=($!)

gateway="http://127.0.0.1:$GATEWAY_PORT"
for _ in $(seq 100); do
    curl -fs "$gateway/readyz" >/dev/null 2>&1 && break
    sleep 0.2
done
curl -fs "$gateway/readyz" >/dev/null || { echo "gateway did not become ready; see .data/logs/gateway.log" >&2; exit 1; }

json_field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"; }
json_string() { awk 'BEGIN { ORS = "" } { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); print $0 "\\n" }' "$1"; }

if [ ! -f "$data/demo.env" ]; then
    echo "==> creating the demo app"
    if [ "$real_apns" = true ]; then
        key_file=$APNS_PRIVATE_KEY_FILE team=$APNS_TEAM_ID key_id=$APNS_KEY_ID bundle=$APNS_BUNDLE_ID
        environment=${APNS_ENVIRONMENT:-development}
    else
        key_file=$data/demo-key.p8
        [ -f "$key_file" ] || openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$key_file" 2>/dev/null
        team=DEMOTEAM01 key_id=DEMOKEY001 bundle=com.example.demo environment=development
    fi
    body="{\"name\":\"Demo\",\"bundle_id\":\"$bundle\",\"apns\":{\"team_id\":\"$team\",\"key_id\":\"$key_id\",\"environment\":\"$environment\",\"private_key\":\"$(json_string "$key_file")\"}}"
    created=$(curl -fsS -X POST "$gateway/admin/apps" -H "Authorization: Bearer $ADMIN_TOKEN" \
        -H 'Content-Type: application/json' -d "$body")
    umask 077
    {
        echo "GATEWAY_URL=$gateway"
        echo "ADMIN_TOKEN=$ADMIN_TOKEN"
        echo "APP_KEY=$(echo "$created" | json_field app_key)"
        echo "APP_SECRET=$(echo "$created" | json_field app_secret)"
        echo "MASTER_SECRET=$(echo "$created" | json_field master_secret)"
        echo "BUNDLE_ID=$bundle"
        echo "APNS_TEAM_ID=$team"
        echo "APNS_KEY_ID=$key_id"
        if [ "$real_apns" = false ]; then
            echo "SIMULATOR_URL=http://127.0.0.1:$SIM_ADMIN_PORT"
            echo "SIMULATOR_APNS_URL=https://127.0.0.1:$SIM_PORT"
            echo "SIMULATOR_CA_FILE=$data/sim-ca.pem"
        fi
    } >"$data/demo.env"
    umask 022
fi
# shellcheck disable=SC1091
. "$data/demo.env"

if [ "$real_apns" = false ]; then
    # The simulator keeps keys in memory: (re)register the demo app's public key on every start.
    for _ in $(seq 50); do curl -fs "http://127.0.0.1:$SIM_ADMIN_PORT/stats" >/dev/null 2>&1 && break; sleep 0.2; done
    pub=$(openssl pkey -in "$data/demo-key.p8" -pubout 2>/dev/null | awk 'BEGIN { ORS = "" } { print $0 "\\n" }')
    curl -fsS -X POST "http://127.0.0.1:$SIM_ADMIN_PORT/keys" -H 'Content-Type: application/json' \
        -d "{\"team_id\":\"$APNS_TEAM_ID\",\"key_id\":\"$APNS_KEY_ID\",\"public_key\":\"$pub\",\"bundle_ids\":[\"$BUNDLE_ID\"]}" >/dev/null
fi

# The worker starts last: the simulator must know the demo app's key before anything is sent.
WORKER_PORT=$WORKER_PORT "$bin/worker" >"$data/logs/worker.log" 2>&1 &
pids+=($!)
sleep 1
kill -0 "${pids[-1]}" 2>/dev/null || { echo "the worker stopped; see .data/logs/worker.log" >&2; exit 1; }

cat <<MSG

Ready. The demo app's credentials are in .data/demo.env; logs are in .data/logs/.
Try it: a device registers, tracks a live activity, and a marketer updates it.

  . .data/demo.env
  R=\$(curl -s -u "\$APP_KEY:\$APP_SECRET" -H 'Content-Type: application/json' \\
    -d '{"channel":{"device_type":"ios","install_id":"demo-device","tags":["vip"]}}' \$GATEWAY_URL/api/channels)
  CH=\$(echo "\$R" | sed 's/.*"channel_id":"\([^"]*\)".*/\1/')
  CS=\$(echo "\$R" | sed 's/.*"channel_secret":"\([^"]*\)".*/\1/')   # the channel's own secret, kept by the app
  curl -s -u "\$APP_KEY:\$APP_SECRET" -H "X-Channel-Secret: \$CS" -X PUT -H 'Content-Type: application/json' \\
    -d '{"attributes_type":"MatchAttributes","token":"'\$(printf 'ab%.0s' \$(seq 32))'","system_activity_id":"demo-1"}' \\
    \$GATEWAY_URL/api/channels/\$CH/live-activities/match
  curl -s -u "\$APP_KEY:\$MASTER_SECRET" -H 'Content-Type: application/json' \$GATEWAY_URL/api/push -d '{
    "audience":{"tag":"vip"},"device_types":["ios"],
    "notification":{"ios":{"live_activity":{"event":"update","name":"match","content_state":{"home":1,"away":0}}}}}'
  curl -s "\$SIMULATOR_URL/stats"          # what APNs (the simulator) received

A broadcast (iOS 18): one channel per activity name, one request for every subscribed device.

  curl -s -u "\$APP_KEY:\$MASTER_SECRET" -X PUT -H 'Content-Type: application/json' -d '{"storage":"none"}' \\
    \$GATEWAY_URL/api/broadcast-channels/match
  curl -s -u "\$APP_KEY:\$MASTER_SECRET" -H 'Content-Type: application/json' \$GATEWAY_URL/api/push -d '{
    "audience":"all","device_types":["ios"],
    "notification":{"ios":{"live_activity":{"event":"update","name":"match","content_state":{"home":2,"away":0}}}}}'

Press Ctrl-C to stop.
MSG
wait "${pids[@]}"
