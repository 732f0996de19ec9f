# The two commands: `make run` and `make test`. See README.md.
.PHONY: run test build release bench clean-data bench-registry bench-fanout bench-retention chaos format

run:
	@scripts/run.sh

test:
	@scripts/test.sh

build:
	swift build

release:
	swift build -c release --product gateway
	swift build -c release --product worker
	swift build -c release --product apns-sim
	swift build -c release --product bench

bench: release
	@scripts/deps.sh --bench
	@scripts/bench.sh

# The long benches are subcommands of `bench` (Sources/Bench), run from a release build of it; BIN_DIR=dir runs the
# gateway, workers and simulator built elsewhere (to compare two builds in one sitting).
BENCH = swift build -c release --product bench && "$$(swift build -c release --show-bin-path)/bench"

bench-registry:
	@scripts/deps.sh --bench
	@$(BENCH) registry

bench-fanout:
	@$(BENCH) fanout

bench-retention:
	@$(BENCH) retention

# primary-lost runs on a pg_auto_failover formation (scripts/pg-ha.sh): --ha installs it when missing.
chaos:
	@scripts/deps.sh --ha
	@$(BENCH) chaos

format:
	@swift format --in-place --parallel --recursive Sources Tests Package.swift Client/Sources Client/Package.swift

clean-data:
	@scripts/pg.sh stop .data/pg || true
	rm -rf .data

# sql/schema.sql, the whole schema generated from sql/ (a scratch PostgreSQL); a test checks it is current.
.PHONY: schema
schema:
	@scripts/schema.sh
