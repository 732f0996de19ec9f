# The faults of `make chaos` (sourced by scripts/chaos.sh, whose helpers they use). Each returns when its fault
# has ended.

# A rolling restart: worker 1 sent SIGTERM (its batches stop at a chunk boundary and go on elsewhere), then started
# again, as an orchestrator would.
fault_sigterm() {
    local pid=${worker_pid[1]} t0
    t0=$(now)
    kill -TERM "$pid"
    wait "$pid" || true
    echo "   sigterm: worker 1 exited $(since "$t0") s after SIGTERM" >>"$work/notes.txt"
    start_worker 1
}

fault_sigkill_one() {
    kill -KILL "${worker_pid[1]}"
    wait "${worker_pid[1]}" 2>/dev/null || true
    start_worker 1
}

# Both workers killed in turn: the second three seconds after the first came back.
fault_sigkill_both() {
    fault_sigkill_one
    sleep 3
    kill -KILL "${worker_pid[2]}"
    wait "${worker_pid[2]}" 2>/dev/null || true
    start_worker 2
}

fault_pg_restart() {
    db_ns scripts/pg.sh restart "$work/pg"
}

fault_pg_stop() {
    db_ns scripts/pg.sh stop "$work/pg"
    sleep 30
    PG_LISTEN="127.0.0.1,$pg_host" db_ns scripts/pg.sh start "$work/pg" "$pg_port" --ephemeral >/dev/null
}

# A random client connection (a worker's or the gateway's) terminated every second for a minute.
fault_term_backends() {
    for _ in $(seq 60); do
        psql_ -c "SELECT count(pg_terminate_backend(pid)) FROM (SELECT pid FROM pg_stat_activity
                  WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() ORDER BY random() LIMIT 1) x" \
            >/dev/null || true
        sleep 1
    done
}

fault_apns_stall() {
    sim config '{"stall":true}'
    sleep 10
    sim config '{"stall":false}'
}

fault_apns_goaway() {
    sim config '{"goaway_after_streams":500}'
    sleep 10
    sim config '{"goaway_after_streams":0}'
}

fault_apns_503() {
    sim config '{"failure_rates":{"ServiceUnavailable":0.2}}'
    sleep 10
    sim config '{"failure_rates":{}}'
}

# Every packet between the programs and PostgreSQL dropped for 10 s, both ways: a token bucket that holds no packet.
fault_net_drop() {
    tc qdisc add dev "$veth" root tbf rate 1kbit burst 10 limit 10
    ip netns exec "$ns" tc qdisc add dev "lagwc1-$$" root tbf rate 1kbit burst 10 limit 10
    sleep 10
    tc qdisc del dev "$veth" root
    ip netns exec "$ns" tc qdisc del dev "lagwc1-$$" root
}

# Not a fault in a fan-out: the gateway offered three times the requests it serves (a channel lookup, one query each)
# for OVERLOAD_SECONDS (default 60), by h2load at a fixed rate per connection; then half its rate for 10 s.
# Prints the rate it served closed-loop, what was offered, what it answered (by status) and the p99 of the
# requests it served, during and after.
scenario_overload() {
    command -v h2load >/dev/null || { echo "overload: skipped (h2load not installed: scripts/deps.sh)"; return; }
    local seconds=${OVERLOAD_SECONDS:-60} channel auth url rate clients=200 per
    channel=$(psql_ -c "SELECT id FROM channels WHERE install_id = 'd1'")
    # The app's own rate limit (server_requests_per_second, 500 by default) would answer 429 first.
    curl -fsS -X PUT "http://127.0.0.1:$gw_port/admin/apps/${big_auth%%:*}/policies" \
        -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \
        -d '{"limits":{"server_requests_per_second":1000000}}' >/dev/null
    auth="authorization: Basic $(printf '%s' "$big_auth" | base64 -w0)"
    url="http://127.0.0.1:$gw_port/api/channels/$channel"
    rate=$(h2load --h1 -c 32 -m 1 -D 10 -H "$auth" "$url" 2>/dev/null |
        sed -n 's/^finished in .*, \([0-9.]*\) req\/s.*/\1/p' | cut -d. -f1)
    per=$(( (3 * rate + clients - 1) / clients ))
    h2load --h1 -c "$clients" -m 1 --rps "$per" -D "$seconds" -H "$auth" --log-file "$work/overload.log" "$url" \
        >"$work/overload.txt" 2>&1 || true
    h2load --h1 -c 16 -m 1 --rps $(( rate / 32 + 1 )) -D 10 -H "$auth" --log-file "$work/after.log" "$url" \
        >/dev/null 2>&1 || true
    python3 - "$work/overload.log" "$work/after.log" "$rate" "$seconds" <<'PY'
import sys
def read(path):
    rows = [line.split('\t') for line in open(path) if line.strip()]
    return [(int(r[1]), int(r[2]) / 1000.0) for r in rows]
def p99(values):
    values = sorted(values)
    return values[int(0.99 * (len(values) - 1))] if values else float('nan')
during, after, rate, seconds = read(sys.argv[1]), read(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def summary(rows, span):
    served = [ms for status, ms in rows if status == 200]
    shed = sum(1 for status, _ in rows if status == 503)
    other = len(rows) - len(served) - shed
    return (f"{len(rows) / span:,.0f} req/s answered: {len(served):,} served (p99 {p99(served):.1f} ms), "
            f"{shed:,} shed with 503, {other} other")
print(f"overload: the gateway serves {rate:,}/s closed-loop; offered 3x for {seconds} s:")
print(f"   during: {summary(during, seconds)}")
print(f"   after, at half its rate for 10 s: {summary(after, 10)}")
PY
}
