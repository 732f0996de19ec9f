#!/usr/bin/env bash
# A private PostgreSQL server for development and tests.
#   scripts/pg.sh start DIR PORT [--ephemeral]   initdb (once) and start, listening on 127.0.0.1:PORT
#   scripts/pg.sh stop DIR
#   scripts/pg.sh restart DIR | reload DIR        (pg_ctl restart -m fast, with the options it was started with)
#   scripts/pg.sh standby DIR PORT PRIMARY_PORT [--ephemeral]
#                                                 a streaming standby of the server on 127.0.0.1:PRIMARY_PORT
#                                                 (pg_basebackup once), started on PORT
#   scripts/pg.sh promote DIR | kill DIR          (pg_ctl promote; SIGKILL to the server, as a lost machine)
# PG_LISTEN: the addresses to listen on (default 127.0.0.1). PG_OPTS: more server options, e.g.
# `-c shared_preload_libraries=citus` (docs/scaling.md, the Citus suite).
# initdb refuses to run as root, so as root the server runs as the system user `lagw-postgres`.
# --ephemeral turns durability off (fsync, synchronous_commit): for throwaway test clusters only.
set -euo pipefail

cmd=${1:?usage: pg.sh start DIR PORT [--ephemeral] | stop DIR | restart DIR | reload DIR}
dir=${2:?data directory}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/initdb" ] || { echo "PostgreSQL server not installed: run scripts/deps.sh" >&2; exit 1; }
pg_user=lagw-postgres

as_pg() {
    if [ "$(id -u)" = 0 ]; then runuser -u "$pg_user" -- "$@"; else "$@"; fi
}

case "$cmd" in
start | standby)
    port=${3:?port}
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ "$(id -u)" = 0 ]; then
        id -u "$pg_user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$pg_user"
        chown -R "$pg_user" "$dir"
        runuser -u "$pg_user" -- test -x "$dir" || {
            echo "the postgres user cannot reach $dir (a parent directory is private); clone elsewhere" >&2
            exit 1
        }
    fi
    if [ "$cmd" = standby ] && [ ! -f "$dir/PG_VERSION" ]; then
        primary=${4:?primary port}
        as_pg "$bin/pg_basebackup" -h 127.0.0.1 -p "$primary" -U postgres -D "$dir" -R -X stream -c fast \
            >"$dir.basebackup.log" 2>&1 || { cat "$dir.basebackup.log" >&2; exit 1; }
        rm -f "$dir.basebackup.log"
        chmod 700 "$dir"
    fi
    if [ ! -f "$dir/PG_VERSION" ]; then
        as_pg "$bin/initdb" -D "$dir" -A trust -U postgres -E UTF8 --no-sync >"$dir.initdb.log" 2>&1 ||
            { cat "$dir.initdb.log" >&2; exit 1; }
        rm -f "$dir.initdb.log"
    fi
    opts="-p $port -k $dir -c listen_addresses=${PG_LISTEN:-127.0.0.1} -c max_connections=300 ${PG_OPTS:-}"
    if [ "${!#}" = "--ephemeral" ]; then
        opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    fi
    as_pg "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -o "$opts" -w -t 60 start >/dev/null ||
        { tail -n 20 "$dir/server.log" >&2; exit 1; }
    ;;
stop)
    [ -f "$dir/postmaster.pid" ] || exit 0
    as_pg "$bin/pg_ctl" -D "$dir" -m fast -w stop >/dev/null || true
    ;;
restart)
    as_pg "$bin/pg_ctl" -D "$dir" -m fast -w -t 60 restart >/dev/null || { tail -n 20 "$dir/server.log" >&2; exit 1; }
    ;;
reload)
    as_pg "$bin/pg_ctl" -D "$dir" reload >/dev/null
    ;;
promote)
    as_pg "$bin/pg_ctl" -D "$dir" -w -t 60 promote >/dev/null
    ;;
kill)
    [ -f "$dir/postmaster.pid" ] || exit 0
    kill -KILL "$(head -n 1 "$dir/postmaster.pid")" 2>/dev/null || true
    ;;
*)
    echo "usage: pg.sh start DIR PORT [--ephemeral] | standby DIR PORT PRIMARY_PORT [--ephemeral] | stop DIR" \
        "| restart DIR | reload DIR | promote DIR | kill DIR" >&2
    exit 2
    ;;
esac
