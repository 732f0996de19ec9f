#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200000}; C=4; M=100
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d /tmp/lagw-sp.XXXXXX)
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/apns.p8" 2>/dev/null
printf '%s' '{"aps":{"timestamp":1790000000,"event":"update","content-state":{"home":2,"away":1,"minute":67,"status":"live","last_event":"Goal by #9"},"stale-date":1790003600,"relevance-score":75}}' >"$work/body.json"
token=$("$bin/bench" token --key-file "$work/apns.p8")
device=$(printf 'ab%.0s' $(seq 32))
headers=(-H "apns-push-type: liveactivity" -H "apns-topic: com.example.game.push-type.liveactivity" -H "apns-priority: 10" -H "authorization: bearer $token")
cpu_of() { awk '{ print ($14 + $15) / 100 }' "/proc/$1/stat"; }
"$bin/apns-sim" --port 9443 --admin-port 9444 --log-level error & sim=$!
sleep 1
pub=$(openssl pkey -in "$work/apns.p8" -pubout | awk 'BEGIN { ORS = "" } { print $0 "\\n" }')
curl -fsS -X POST http://127.0.0.1:9444/keys -d "{\"team_id\":\"TEAM123456\",\"key_id\":\"KEY1234567\",\"public_key\":\"$pub\"}" >/dev/null
curl -fsS -X POST http://127.0.0.1:9444/config -d "{\"record\":false,\"max_concurrent_streams\":$M}" >/dev/null
h2load -n 20000 -c $C -m $M -d "$work/body.json" "${headers[@]}" "https://127.0.0.1:9443/3/device/$device" >/dev/null
before=$(cpu_of $sim)
if [ -n "${PERF:-}" ]; then perf record -F 2999 -g -p $sim -o /tmp/sim.perf >/dev/null 2>&1 & pp=$!; sleep 0.5; fi
h2load -n "$N" -c "$C" -m "$M" -d "$work/body.json" "${headers[@]}" "https://127.0.0.1:9443/3/device/$device" | grep -E "^finished in|status codes"
after=$(cpu_of $sim)
[ -n "${PERF:-}" ] && { kill -INT $pp; wait $pp || true; }
echo "sim CPU: $(awk -v a="$after" -v b="$before" -v n="$N" 'BEGIN { printf "%.2fs = %.2f us per request", a - b, (a - b) / n * 1e6 }')"
kill $sim; rm -rf "$work"
