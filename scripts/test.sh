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
# The integration tier in two runs. The suites that measure wake-ups, claim rates, leases and lateness serially, with
# the cores to themselves: CPU contention on 2 cores would blur what they measure.
timed='^IntegrationTests\.(JobQueue[A-Za-z]*Tests|JobRunner[A-Za-z]*Tests|ScheduleFairnessTests|ScheduleFiringTests/aThousand|DatabaseLostStatementTests|GatewayConnectionTests|GatewayCredentialChangeTests|DeliveryLedgerSupersessionTests|WorkerHealthTests)'
swift test --skip-build --no-parallel --filter "$timed"
# The rest four at a time: they mostly wait (on the simulator's latency, timers, worker processes), and none asserts
# a duration that contention could break.
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=4 swift test --skip-build --filter '^IntegrationTests\.' --skip "$timed"
