#!/usr/bin/env bash
# Load test of `umwelt serve` with wrk on loopback (issue: serve).
#   bench/serve_load.sh CORPUS [SECONDS]
# CORPUS should have a vector space (`umwelt index`) for the hybrid figures.
# Runs, each for SECONDS (default 20) at 64 connections: keyword searches,
# hybrid searches, then 100,000 keyword requests while sampling the server's
# RSS, then keyword searches again with a writer importing into the corpus
# and the server reloading its indexes underneath (a sync). Prints one
# RESULT line per run; bounded in time by `timeout`.
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${1:?usage: bench/serve_load.sh CORPUS [SECONDS]}
SECONDS_EACH=${2:-20}
UMWELT=${UMWELT:-build/src/cli/umwelt}
WORK=$(mktemp -d)
trap 'kill $SERVER $WRITER 2>/dev/null || true; rm -rf "$WORK"' EXIT
PORT=$((20000 + RANDOM % 20000))
run_wrk() {  # MODE DURATION [RATE]: RATE offers that many requests/s; none drives as fast as answers come
  MODE=$1 RATE=${3:-0} CONNS=64 timeout $(( $2 + 30 )) wrk -t2 -c64 -d"$2"s --timeout 5s -s bench/serve_load.lua \
    "http://127.0.0.1:$PORT" | grep '^RESULT'
}
rss() { awk '/VmRSS/ {print $2}' "/proc/$SERVER/status"; }

$UMWELT --corpus "$CORPUS" serve --port "$PORT" --sync-every 15s 2>"$WORK/serve.log" &
SERVER=$!
for _ in $(seq 1 600); do grep -q "listening on" "$WORK/serve.log" 2>/dev/null && break; sleep 0.1; done
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); corpus: $CORPUS"
curl -s "http://127.0.0.1:$PORT/api/status" | head -c 300; echo
run_wrk keyword 3 >/dev/null   # warm up
echo "== keyword: 600/s offered (to answer at least 500/s), then as fast as it answers"
run_wrk keyword "$SECONDS_EACH" 600 | tee "$WORK/base"
run_wrk keyword "$SECONDS_EACH"
echo "== hybrid: 112/s offered (to answer at least 100/s), then as fast as it answers"
run_wrk hybrid "$SECONDS_EACH" 112
run_wrk hybrid "$SECONDS_EACH"
echo "== RSS over 100,000 requests"
R0=$(rss)
N=0
while [ "$N" -lt 100000 ]; do
  OUT=$(run_wrk keyword 10)
  echo "$OUT"
  N=$((N + $(echo "$OUT" | sed 's/.*requests=\([0-9]*\).*/\1/')))
done
R1=$(rss)
echo "RESULT rss_start_kb=$R0 rss_end_kb=$R1 requests=$N change_pct=$(awk -v a="$R0" -v b="$R1" 'BEGIN {printf "%.1f", (b - a) * 100 / a}')"
echo "== keyword, 600/s offered, with a sync underneath (a writer importing, the server reloading every 15 s)"
python3 - "$WORK" <<'PY'
import json, sys
msgs = [{"id": str(9000000000 + i), "type": "Default", "timestamp": "2026-11-2%dT10:00:00+00:00" % (i % 9),
         "content": "load test message %d about checkpoint restore and fsdp" % i,
         "author": {"id": "1", "name": "bench"}} for i in range(20000)]
exp = {"guild": {"id": "77", "name": "bench"}, "channel": {"id": "78", "type": "GuildTextChat", "name": "load"},
       "messages": msgs}
json.dump(exp, open(sys.argv[1] + "/export.json", "w"))
PY
( for i in $(seq 1 1000); do
    sed "s/\"id\": \"9/\"id\": \"$i/g" "$WORK/export.json" > "$WORK/e.json"
    $UMWELT --corpus "$CORPUS" import discord "$WORK/e.json" >/dev/null 2>&1 || true
  done ) &
WRITER=$!
sleep 2
run_wrk keyword "$SECONDS_EACH" 600 | tee "$WORK/sync"
kill $WRITER 2>/dev/null || true
awk '{for (i = 1; i <= NF; i++) if ($i ~ /^p99_ms=/) {split($i, a, "="); print a[2]}}' "$WORK/base" "$WORK/sync" |
  paste -sd' ' | awk '{printf "RESULT sync_p99_ratio=%.2f (p99 %.1f ms without, %.1f ms with)\n", $2 / $1, $1, $2}'
grep "scheduler" "$WORK/serve.log" | tail -3 || true
