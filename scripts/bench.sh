#!/usr/bin/env bash
# `make bench`: the APNs transport against nghttp2's C reference, all in one run, on release builds.
#   1. h2load -> nghttpd             (the C reference)
#   2. our client -> nghttpd         (same connections x streams)
#   3. h2load -> our simulator
#   4. our client -> our simulator   (in-process, server count checked)
# Every figure is measured here; CPU per notification is the process's user+sys time divided by requests.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200000}
C=${C:-4}
M=${M:-100}
# BIN_DIR: a directory holding `bench` built elsewhere (to compare two builds in one sitting).
bin=${BIN_DIR:-$(swift build -c release --show-bin-path)}
work=$(mktemp -d /tmp/lagw-bench.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/apns.p8" 2>/dev/null
printf '%s' '{"aps":{"timestamp":1790000000,"event":"update","content-state":{"home":2,"away":1,"minute":67,"status":"live","last_event":"Goal by #9"},"stale-date":1790003600,"relevance-score":75}}' >"$work/body.json"
token=$("$bin/bench" token --key-file "$work/apns.p8")
headers=(-H "apns-push-type: liveactivity" -H "apns-topic: com.example.game.push-type.liveactivity"
    -H "apns-priority: 10" -H "authorization: bearer $token")

cpu_of() { awk '{ print ($14 + $15) / 100 }' "/proc/$1/stat"; }  # utime+stime in seconds (CLK_TCK=100)

# nghttpd answers 200 (an empty file) for each of the 100,000 device tokens both clients send to, as APNs answers an
# accepted notification; a missing file would be a 404 with an HTML body, which our client reads as a rejection.
mkdir -p "$work/www/3/device"
tokens=$(( N < 100000 ? N : 100000 ))
prefix=$(printf 'a%.0s' $(seq 56))  # the bench's tokens: 56 x "a" and the index in 8 hex digits
(cd "$work/www/3/device" && for ((n = 0; n < tokens; n++)); do printf -v name '%s%08x' "$prefix" "$n"; : >"$name"; done)
(cd "$work/www/3/device" && ls) | sed 's|^|https://127.0.0.1:8443/3/device/|' >"$work/uris"
nghttpd -d "$work/www" --max-concurrent-streams="$M" 8443 "$work/key.pem" "$work/cert.pem" >/dev/null 2>&1 &
pids+=($!)
sleep 1

echo "== 1. h2load -> nghttpd ($N requests, $C connections x $M streams, the same $tokens device paths as ours)"
h2load -n "$N" -c "$C" -m "$M" -d "$work/body.json" "${headers[@]}" -i "$work/uris" |
    grep -E "^finished in|requests:|status codes|time for request" | sed 's/^/   /'
h2cpu=$( { /usr/bin/time -f "%U %S" h2load -n "$N" -c "$C" -m "$M" -d "$work/body.json" "${headers[@]}" \
    -i "$work/uris" >/dev/null; } 2>&1 | tail -1 | awk '{ print $1 + $2 }')
echo "   h2load client CPU: ${h2cpu}s = $(awk -v c="$h2cpu" -v n="$N" 'BEGIN { printf "%.2f", c / n * 1e6 }') us per request"

echo "== 2. our client -> nghttpd (same $C x $M)"
timeout 120 "$bin/bench" apns --count "$N" --connections "$C" --streams "$M" --callers "$C" --batch 4000 \
    --url https://127.0.0.1:8443 --ca-file "$work/cert.pem" | sed 's/^/   /' ||
    echo "   did not finish in 120 s (known issue: the client stalls against nghttpd under load; see README)"

echo "== 3. h2load -> our simulator"
"$bin/apns-sim" --port 9443 --admin-port 9444 --log-level error &
pids+=($!)
sleep 1
pub=$(openssl pkey -in "$work/apns.p8" -pubout | awk 'BEGIN { ORS = "" } { print $0 "\\n" }')
curl -fsS -X POST http://127.0.0.1:9444/keys -d "{\"team_id\":\"TEAM123456\",\"key_id\":\"KEY1234567\",\"public_key\":\"$pub\"}" >/dev/null
# Like nghttpd, no per-request bookkeeping beyond the totals: no recording, no per-token counts (as bench-fanout).
curl -fsS -X POST http://127.0.0.1:9444/config -d "{\"record\":false,\"count_tokens\":false,\"max_concurrent_streams\":$M}" >/dev/null
before=$(cpu_of "${pids[-1]}")
sed 's/:8443/:9443/' "$work/uris" >"$work/uris-sim"
h2load -n "$N" -c "$C" -m "$M" -d "$work/body.json" "${headers[@]}" -i "$work/uris-sim" |
    grep -E "^finished in|requests:|status codes" | sed 's/^/   /'
after=$(cpu_of "${pids[-1]}")
echo "   simulator CPU: $(awk -v a="$after" -v b="$before" -v n="$N" 'BEGIN { printf "%.2fs = %.2f us per request", a - b, (a - b) / n * 1e6 }')"
echo "   simulator counted: $(curl -fsS http://127.0.0.1:9444/stats)"
nghttpd_before=$(cpu_of "${pids[0]}")
h2load -n "$N" -c "$C" -m "$M" -d "$work/body.json" "${headers[@]}" -i "$work/uris" >/dev/null
nghttpd_after=$(cpu_of "${pids[0]}")
echo "   (nghttpd CPU for the same load: $(awk -v a="$nghttpd_after" -v b="$nghttpd_before" -v n="$N" 'BEGIN { printf "%.2fs = %.2f us per request", a - b, (a - b) / n * 1e6 }'))"

echo "== 4. our client -> our simulator (in-process)"
"$bin/bench" apns --count "$N" --connections "$C" --streams "$M" --callers "$C" --batch 4000 | sed 's/^/   /'
