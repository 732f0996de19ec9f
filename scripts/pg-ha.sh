#!/usr/bin/env bash
# A PostgreSQL formation with high availability, on loopback: a pg_auto_failover monitor, a primary and a synchronous
# standby (Debian's pg-auto-failover-cli and postgresql-NN-auto-failover: scripts/deps.sh --ha).
#   scripts/pg-ha.sh start DIR         monitor, node a (primary), node b (secondary) on free ports; prints the
#                                      multi-host URL (also in DIR/url) once b streams synchronously
#   scripts/pg-ha.sh kill-primary DIR  SIGKILL to the primary's keeper and postgres; its data directory moved aside
#                                      (DIR/<node>.lost) and made unreadable; prints the node (a or b)
#   scripts/pg-ha.sh rejoin DIR        the lost node dropped from the monitor and made anew, on its old port, as the
#                                      standby of the new primary; returns once it streams synchronously
#   scripts/pg-ha.sh state DIR         pg_autoctl show state
#   scripts/pg-ha.sh primary DIR       prints the node that is primary now (a or b)
#   scripts/pg-ha.sh stop DIR
# As pg.sh: as root, everything runs as the system user `lagw-postgres` (initdb and pg_autoctl refuse root).
# Durability stays on: synchronous_commit=on, and pg_auto_failover keeps synchronous_standby_names set while the
# standby is healthy (docs/high-availability.md).
set -euo pipefail

usage="usage: pg-ha.sh start DIR | kill-primary DIR | rejoin DIR | state DIR | primary DIR | stop DIR"
cmd=${1:?$usage}
dir=${2:?data directory}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
command -v pg_autoctl >/dev/null || { echo "pg_auto_failover not installed: run scripts/deps.sh --ha" >&2; exit 1; }
pg_user=lagw-postgres
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# Signals back to their defaults: a caller that ignores SIGINT and SIGTERM (the bench does, to stop its programs
# itself) would pass that on, and pg_autoctl's services would then never stop.
pg=(env --default-signal "XDG_CONFIG_HOME=$dir/xdg/config" "XDG_DATA_HOME=$dir/xdg/data" "XDG_RUNTIME_DIR=$dir/xdg/run"
    "PGHOST=$dir/sock" PGUSER=postgres "PATH=$bin:$PATH")
[ "$(id -u)" != 0 ] || pg=(runuser -u "$pg_user" -- "${pg[@]}")
as_pg() { "${pg[@]}" "$@"; }
port() { cat "$dir/$1.port"; }
monitor_url() { echo "postgres://autoctl_node@127.0.0.1:$(port monitor)/pg_auto_failover?sslmode=disable"; }
sql() { as_pg "$bin/psql" -X -At -h 127.0.0.1 -p "$(port "$1")" -U postgres -d "${3:-postgres}" -c "$2"; }

# `until_true SECONDS DESCRIPTION COMMAND...`: COMMAND polled every 0.2 s until it succeeds, at most SECONDS.
until_true() {
    local deadline=$((SECONDS + $1)) what=$2
    shift 2
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || { echo "pg-ha: timed out waiting for $what" >&2; exit 1; }
        sleep 0.2
    done
}

# A pg_autoctl service (monitor or keeper) in a process group of its own, so that kill-primary reaches all of it.
run_service() {
    setsid "${pg[@]}" pg_autoctl "$@" </dev/null >>"$dir/$node.log" 2>&1 &
    echo $! >"$dir/$node.pid"
}

# `init NODE SETTINGS`: initdb, SETTINGS written last (postgresql.auto.conf is read after pg_autoctl's own file):
# loopback only, and the sockets in DIR/sock rather than /var/run/postgresql.
init() {
    as_pg "$bin/initdb" -D "$dir/$1" -A trust -U postgres -E UTF8 --no-sync >>"$dir/$1.log" 2>&1 ||
        { tail -n 20 "$dir/$1.log" >&2; exit 1; }
    printf "listen_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\n%s\n" "$dir/sock" "$2" |
        as_pg tee -a "$dir/$1/postgresql.auto.conf" >/dev/null
}

start_monitor() {
    node=monitor
    "$here/free-port.sh" >"$dir/monitor.port"
    # Failover sooner than the defaults (5 s checks, 20 s unhealthy): loopback answers in microseconds.
    init monitor "shared_buffers = '128MB'
pgautofailover.health_check_period = 1000
pgautofailover.health_check_timeout = 1000
pgautofailover.health_check_max_retries = 2
pgautofailover.health_check_retry_delay = 500
pgautofailover.node_considered_unhealthy_timeout = 5000
pgautofailover.primary_demote_timeout = 10000"
    as_pg pg_autoctl create monitor --pgdata "$dir/monitor" --pgport "$(port monitor)" --pgctl "$bin/pg_ctl" \
        --hostname 127.0.0.1 --auth trust --no-ssl >>"$dir/monitor.log" 2>&1 ||
        { tail -n 20 "$dir/monitor.log" >&2; exit 1; }
    as_pg pg_autoctl config set --pgdata "$dir/monitor" postgresql.listen_addresses 127.0.0.1 >/dev/null
    run_service run --pgdata "$dir/monitor"
    until_true 60 "the monitor" sql monitor "SELECT 1 FROM pgautofailover.formation" pg_auto_failover
}

# `create_node NAME`: a keeper and its postgres; the first is the primary, the next a standby (pg_basebackup).
create_node() {
    node=$1
    [ -f "$dir/$node.port" ] || "$here/free-port.sh" >"$dir/$node.port"
    run_service create postgres --pgdata "$dir/$node" --pgport "$(port "$node")" \
        --pgctl "$bin/pg_ctl" --hostname 127.0.0.1 --name "$node" --username postgres --dbname postgres \
        --listen 127.0.0.1 --monitor "$(monitor_url)" --auth trust --no-ssl --run
}

# `tune NODE`, once its keeper runs: a primary cut off from the monitor and its standby demotes itself after 5 s (20 by
# default), within the monitor's primary_demote_timeout (10 s here, 30 by default) after which the standby is promoted.
tune() {
    as_pg pg_autoctl config set --pgdata "$dir/$1" timeout.network_partition_timeout 5 >/dev/null
    as_pg pg_autoctl reload --pgdata "$dir/$1" >/dev/null 2>&1
}

node_state() { sql monitor "SELECT reportedstate FROM pgautofailover.node WHERE nodename = '$1'" pg_auto_failover; }
primary() {
    sql monitor "SELECT nodename FROM pgautofailover.node WHERE reportedstate IN ('primary', 'wait_primary',
        'single') AND goalstate = reportedstate ORDER BY nodename LIMIT 1" pg_auto_failover
}
gone() { ! kill -0 -- "-$1" 2>/dev/null; }
state_is() { [ "$(node_state "$1")" = "$2" ]; }
other() { [ "$1" = a ] && echo b || echo a; }

# The standby `node` is `secondary` and the primary waits for it on commit.
synchronous() {
    local node=$1 primary
    primary=$(other "$node")
    [ "$(node_state "$node")" = secondary ] && [ "$(node_state "$primary")" = primary ] &&
        [ -n "$(sql "$primary" "SHOW synchronous_standby_names")" ] &&
        [ "$(sql "$primary" "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'
            AND sync_state IN ('sync', 'quorum')")" = 1 ]
}

case "$cmd" in
start)
    if [ "$(id -u)" = 0 ]; then
        id -u "$pg_user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$pg_user"
        chown "$pg_user" "$dir"
        runuser -u "$pg_user" -- test -x "$dir" || {
            echo "the postgres user cannot reach $dir (a parent directory is private)" >&2
            exit 1
        }
    fi
    as_pg mkdir -p "$dir/xdg/config" "$dir/xdg/data" "$dir/xdg/run" "$dir/sock"
    as_pg chmod 700 "$dir/xdg/run"
    start_monitor
    # The first primary's own initdb: its settings reach the standby through the base backup.
    init a "max_connections = 300
shared_buffers = '1GB'"
    create_node a
    until_true 120 "node a, primary" state_is a single
    tune a
    create_node b
    until_true 300 "node b, synchronous standby" synchronous b
    tune b
    url="postgres://postgres@127.0.0.1:$(port a),127.0.0.1:$(port b)/postgres?target_session_attrs=read-write"
    echo "$url" >"$dir/url"
    echo "$url"
    ;;
primary)
    primary
    ;;
kill-primary)
    node=$(primary)
    [ -n "$node" ] || { echo "pg-ha: no primary" >&2; exit 1; }
    postmaster=$(head -n 1 "$dir/$node/postmaster.pid" 2>/dev/null || true)
    kill -KILL -- "-$(cat "$dir/$node.pid")" 2>/dev/null || true
    if [ -n "$postmaster" ]; then
        kill -KILL "$postmaster" 2>/dev/null || true
        # Its backends and auxiliary processes, which would otherwise notice their postmaster gone on their own.
        pkill -KILL -P "$postmaster" 2>/dev/null || true
    fi
    mv "$dir/$node" "$dir/$node.lost"
    chmod 000 "$dir/$node.lost"
    echo "$node"
    ;;
rejoin)
    node=$(cd "$dir" && ls -d ./*.lost 2>/dev/null | head -n 1 | sed 's|^\./||; s|\.lost$||')
    [ -n "$node" ] || { echo "pg-ha: no lost node in $dir" >&2; exit 1; }
    as_pg pg_autoctl drop node --monitor "$(monitor_url)" --name "$node" --force >>"$dir/$node.log" 2>&1 || true
    until_true 60 "node $node dropped" test -z "$(node_state "$node")"
    # pg_basebackup asks for a spread checkpoint (up to checkpoint_timeout x checkpoint_completion_target, 4.5 min,
    # with a busy primary's buffers dirty): one now leaves it little to write.
    sql "$(other "$node")" "CHECKPOINT" >/dev/null
    chmod 700 "$dir/$node.lost"
    rm -rf "$dir/$node.lost" "$dir/xdg/config/pg_autoctl$dir/$node" "$dir/xdg/data/pg_autoctl$dir/$node"
    create_node "$node"
    until_true 300 "node $node, synchronous standby" synchronous "$node"
    tune "$node"
    ;;
state)
    as_pg pg_autoctl show state --monitor "$(monitor_url)"
    ;;
stop)
    for node in a b monitor; do
        [ -f "$dir/$node.pid" ] || continue
        kill -TERM -- "-$(cat "$dir/$node.pid")" 2>/dev/null || true
    done
    for node in a b monitor; do
        [ -f "$dir/$node.pid" ] || continue
        pid=$(cat "$dir/$node.pid")
        until_true 60 "$node to stop" gone "$pid"
        rm -f "$dir/$node.pid"
    done
    ;;
*)
    echo "$usage" >&2
    exit 2
    ;;
esac
