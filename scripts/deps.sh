#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks for `make run` / `make test`: the PostgreSQL server, curl, openssl,
# nghttp2's h2load and nghttpd (the tests check our HTTP/2 client and simulator against them), and mono-mcs (the
# tests compile the Unity binding's C# and run it under mono). With `--bench`, also wrk; with `--ha`, pg_auto_failover
# (scripts/pg-ha.sh, the chaos bench's primary-lost). Idempotent.
set -euo pipefail

need=()
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
[ -n "$(pg_bin)" ] && [ -x "$(pg_bin)/initdb" ] || need+=(postgresql)
command -v curl >/dev/null || need+=(curl)
command -v openssl >/dev/null || need+=(openssl)
command -v h2load >/dev/null || need+=(nghttp2-client)
command -v nghttpd >/dev/null || need+=(nghttp2-server)
command -v python3 >/dev/null || need+=(python3)
# The Unity binding's tests compile its C# (mcs) and run it (mono).
command -v mcs >/dev/null || need+=(mono-mcs)
if [ "${1:-}" = "--bench" ]; then
    command -v wrk >/dev/null || need+=(wrk)
fi
if [ "${1:-}" = "--ha" ]; then
    command -v pg_autoctl >/dev/null || need+=(pg-auto-failover-cli)
    # The extension for the server's major version (Debian's default, 15 on bookworm, when none is installed yet).
    pg_major=$(pg_bin | cut -d/ -f5)
    pg_major=${pg_major:-15}
    [ -f "/usr/lib/postgresql/$pg_major/lib/pgautofailover.so" ] || need+=("postgresql-$pg_major-auto-failover")
fi
[ ${#need[@]} -eq 0 ] && exit 0

echo "installing: ${need[*]}" >&2
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
