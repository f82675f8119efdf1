#!/usr/bin/env bash
# The scale benchmark (issue 33): corpora of the given sizes built from the
# real text under ../shared/data (resampled, as keyword_bench does), and per
# size: import, keyword index and vectors (time, files, peak RSS), keyword
# and hybrid search in-process and as a whole process, recall of the vector
# file's lists against an exact scan, and served searches/s.
#   bench/scale.sh [SIZE...]          # default: 1000000 2211460 10000000
# DIR (default /tmp/umwelt-scale) holds the corpora (~1.3 GB a million
# chunks plus ~0.9 GB of indexes); a corpus already there is reused (its
# import is not timed again). SERVE_SECONDS=0 skips the served figures;
# KEYWORD_BENCH=0 skips keyword_bench's FTS5 and in-process keyword figures
# (for a corpus it has already measured, or at 10M where they take long):
# a corpus not yet there is then imported alone (--import-only).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${DIR:-/tmp/umwelt-scale}
BUILD=${BUILD:-build}
UMWELT=$BUILD/src/cli/umwelt
SERVE_SECONDS=${SERVE_SECONDS:-10}
KEYWORD_BENCH=${KEYWORD_BENCH:-1}
mkdir -p "$DIR"
[ $# -gt 0 ] || set -- 1000000 2211460 10000000
peak() { awk '/Maximum resident/ {m = $6} /Elapsed/ {e = $8} END {printf "%.0f MB; %s", m / 1024, e}' "$1"; }
p50() { sort -n | awk '{a[NR]=$1} END {printf "%.1f / %.1f ms", a[int(NR*0.5)+1], a[int(NR*0.95)+1]}'; }
whole() {  # Q [FLAGS...]: 20 runs of `umwelt search --json`, p50 / p95 in ms
  local q=$1
  shift
  for _ in $(seq 20); do
    local t0 t1
    t0=$(date +%s%N)
    "$UMWELT" --corpus "$DB" search --json -k 10 "$@" "$q" >/dev/null
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000))
  done | awk '{print $1 / 1000}' | p50
}
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(date -u +%F)"
for N in "$@"; do
  DB=$DIR/bench-$N.db
  echo "## $N chunks"
  REUSE=()
  [ -f "$DB" ] && REUSE=(--reuse)
  # Import (unless reused), FTS5, the keyword index and its searches.
  ONLY=()
  [ "$KEYWORD_BENCH" = 0 ] && ONLY=(--import-only)
  if [ "$KEYWORD_BENCH" != 0 ] || [ ! -f "$DB" ]; then
    /usr/bin/time -v "$BUILD/bench/keyword_bench" --chunks "$N" --dir "$DIR" --umwelt "$UMWELT" "${REUSE[@]}" \
      "${ONLY[@]}" 2>"$DIR/kw-$N.time"
  fi
  # The keyword index as `umwelt` builds it, alone.
  rm -f "$DB.kwidx"
  /usr/bin/time -v "$UMWELT" --corpus "$DB" search --fts-only --json -k 5 "loss spike" >/dev/null 2>"$DIR/kwidx-$N.time"
  echo "| keyword index built by \`umwelt search\`: peak RSS; wall | $(peak "$DIR/kwidx-$N.time") |"
  # The builtin space: train, embed, the vector file (lists past a million), hybrid search.
  /usr/bin/time -v "$BUILD/bench/vector_bench" builtin --corpus "$DB" 2>"$DIR/vec-$N.time"
  echo "| builtin space (train + embed + vector file): peak RSS; wall | $(peak "$DIR/vec-$N.time") |"
  rm -f "$DB.vec-prose"
  /usr/bin/time -v "$UMWELT" --corpus "$DB" search --json -k 5 "loss spike" >/dev/null 2>"$DIR/vecfile-$N.time"
  echo "| vector file built by \`umwelt search\`: peak RSS; wall | $(peak "$DIR/vecfile-$N.time") |"
  "$BUILD/bench/vector_bench" lists --corpus "$DB" --queries 100
  "$UMWELT" --corpus "$DB" search --json "warm the page cache" >/dev/null
  echo "| whole process \`umwelt search --json -k 10\`: keyword / hybrid / hybrid --exact, p50 / p95 |" \
    "$(whole "MFU GB200" --fts-only) / $(whole "MFU GB200") / $(whole "MFU GB200" --exact) |"
  if [ "$SERVE_SECONDS" != 0 ]; then  # served searches, 64 connections (bench/serve_load.sh does more)
    PORT=$((20000 + RANDOM % 20000))
    "$UMWELT" --corpus "$DB" serve --port "$PORT" 2>"$DIR/serve-$N.log" &
    SERVER=$!
    for _ in $(seq 1 600); do grep -q "listening on" "$DIR/serve-$N.log" 2>/dev/null && break; sleep 0.1; done
    for P in "/api/search?q=MFU%20GB200&fts_only=1&k=50" "/api/search?q=MFU%20GB200&k=50"; do
      echo "served, 64 connections from 8 addresses: $P"
      "$BUILD/bench/serve_clients" --port "$PORT" --seconds "$SERVE_SECONDS" --path "$P" | grep '^RESULT' || true
    done
    kill "$SERVER"
    wait "$SERVER" 2>/dev/null || true
  fi
done
