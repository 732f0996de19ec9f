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
# Arguments (e.g. `--filter X`) run those tests alone, serially.
if [ $# -gt 0 ]; then
    exec swift test --skip-build --no-parallel "$@"
fi
# The unit tier first: no PostgreSQL, seconds; a failure there ends the run before the slow tier.
unit='^(LiveActivitiesCoreTests|APNsTransportTests|PostgresStoreTests|DeliveryTests|SimulatorTests|LiveActivitiesClientTests|GatewayTests|DeploymentTests)\.'
swift test --skip-build --no-parallel --filter "$unit"
# Then the integration tier, serially: the suites measure wake-ups, claim rates, leases and lateness, which CPU
# contention on 2 cores would blur (unbounded, swift-testing starts every test at once: a hundred gateways and workers).
swift test --skip-build --no-parallel --filter '^IntegrationTests\.'
