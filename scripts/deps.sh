#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks for `make run` / `make test`: the PostgreSQL server, curl, openssl,
# nghttp2's h2load and nghttpd (the tests check our HTTP/2 client and simulator against them), and mono-mcs (the
# tests compile the Unity binding's C# and run it under mono). With `--bench`, also wrk. Idempotent.
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
[ ${#need[@]} -eq 0 ] && exit 0

echo "installing: ${need[*]}" >&2
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
