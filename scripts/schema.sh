#!/usr/bin/env bash
# `make schema`: sql/schema.sql, the whole schema in one readable file, generated from sql/ (the migrations, then the
# views of sql/views/): a scratch PostgreSQL, `gateway migrate`, then `pg_dump --schema-only`, normalized.
#   scripts/schema.sh                 regenerate sql/schema.sql
#   scripts/schema.sh dump URL FILE   the normalized dump of the database at URL into FILE (what the test compares)
set -euo pipefail
cd "$(dirname "$0")/.."

# The client of the server scripts/pg.sh runs (Debian keeps it beside the server, not always on PATH).
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
pg_dump=$bin/pg_dump
[ -x "$pg_dump" ] || pg_dump=$(command -v pg_dump) || { echo "pg_dump not found: run scripts/deps.sh" >&2; exit 1; }

# Left out: what varies from run to run (pg_dump's version lines, its \restrict key, the session SETs) and the weekly
# partitions (<table>_pYYYYMMDD), which history_partitions_ensure makes around the day it runs.
dump() {
    local major
    major=$("$pg_dump" --version | sed -n 's/^pg_dump (PostgreSQL) \([0-9]*\).*/\1/p')
    {
        cat <<HEADER
-- The whole schema, generated from the migrations (sql/NNNN_*.sql) and the views (sql/views/) by \`make schema\`:
-- an empty database migrated, then \`pg_dump --schema-only\` (PostgreSQL $major). Do not edit it: change a migration or
-- a view file and run \`make schema\`; a test fails while this file differs from what the migrations make.
-- Not shown: the weekly partitions of the history tables (<table>_pYYYYMMDD), made by history_partitions_ensure.

HEADER
        "$pg_dump" --schema-only --no-owner --no-privileges \
            --exclude-table='*_p[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]' --dbname="$1" |
            awk '
                BEGIN { RS = "" }
                {
                    n = split($0, lines, "\n"); out = ""
                    for (i = 1; i <= n; i++) {
                        l = lines[i]
                        if (l ~ /^\\(un)?restrict / || l ~ /^-- Dumped (from|by) / || l ~ /^SET [a-z_]+ = / ||
                            l ~ /^SELECT pg_catalog\.set_config\(/) continue
                        out = out (out == "" ? "" : "\n") l
                    }
                    if (out == "" || out ~ /^--\n-- PostgreSQL database dump( complete)?\n--$/) next
                    printf "%s%s", (printed ? "\n\n" : ""), out
                    printed = 1
                }
                END { print "" }'
    } >"$2"
}

if [ "${1:-}" = dump ]; then
    dump "${2:?usage: schema.sh dump URL FILE}" "${3:?usage: schema.sh dump URL FILE}"
    exit 0
fi

swift build --product gateway >/dev/null
gateway="$(swift build --show-bin-path)/gateway"
dir=$(mktemp -d /tmp/lagw-schema-pg.XXXXXX)
port=$(scripts/free-port.sh)
cleanup() { scripts/pg.sh stop "$dir/data" || true; rm -rf "$dir"; }
trap cleanup EXIT
chmod 755 "$dir"
scripts/pg.sh start "$dir/data" "$port" --ephemeral
url="postgres://postgres@127.0.0.1:$port/postgres"
DATABASE_URL=$url MIGRATIONS_DIR=sql "$gateway" migrate >/dev/null
dump "$url" sql/schema.sql
echo "wrote sql/schema.sql"
