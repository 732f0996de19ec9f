#!/usr/bin/env bash
# `make test`: a throwaway PostgreSQL on a free port, `swift test` against it, then tear it down.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh

dir=$(mktemp -d /tmp/lagw-test-pg.XXXXXX)
port=$(scripts/free-port.sh)
cleanup() { scripts/pg.sh stop "$dir/data" || true; rm -rf "$dir"; }
trap cleanup EXIT
chmod 755 "$dir"
scripts/pg.sh start "$dir/data" "$port" --ephemeral

export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
export LAGW_REPO_ROOT="$PWD"
swift build --build-tests
# The end-to-end tests start the real `worker` binary.
swift build --product worker
# The Unity binding's tests load its shared library (and compile a C and a C# program against it).
swift build --product LiveActivitiesUnity
# Serially: the suites measure wake-up latencies and leases, which CPU contention on 2 cores would blur.
swift test --skip-build --no-parallel "$@"
