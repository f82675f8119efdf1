#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each, seeded from the real
# recordings in ../shared/data when present and from fuzz/seeds/.
#   scripts/fuzz.sh [SECONDS]         each target for SECONDS (default 60; CI)
#   scripts/fuzz.sh --long [RUNS]     each target to at least RUNS executions
#                                     (default 1000000), one worker per core,
#                                     on inputs of up to 1 MiB, from seeds
#                                     cut down to 16 KiB (node) beside 64 KiB
#                                     runs of the characters patterns repeat
#                                     over (every mode has those, and runs
#                                     each target on 1 MiB runs first)
#                                     A long run that is stopped (Ctrl-C,
#                                     SIGTERM) keeps what its workers did:
#                                     build-fuzz/long-ledger adds up each
#                                     target's executions over runs, each
#                                     resuming from the corpus the last one
#                                     saved, and the next run does only what
#                                     is left to RUNS.
#   UMWELT_FUZZ_TARGETS="fuzz_auth fuzz_wandb" limits either to those targets.
# Prints one line per target (executions, time, ok or CRASH) and exits 1 on a
# crash, leaving the input as build-fuzz/crash-TARGET-*.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=short
SECONDS_PER_TARGET=60
RUNS=1000000
if [ "${1:-}" = "--long" ]; then
  MODE=long
  RUNS="${2:-1000000}"
elif [ -n "${1:-}" ]; then
  SECONDS_PER_TARGET="$1"
fi
DATA="${UMWELT_SHARED_DATA:-../shared/data}"
# One build for both: at -O0 it compiles only ~30 % quicker, and replays
# the 1 MiB seeds 3-4 times slower (2026-12-03), so CI gains nothing.
BUILD=build-fuzz
# Quickest first, so a long run that is cut short has finished most of them.
ALL="fuzz_manifest fuzz_auth fuzz_git_cursor fuzz_link_header fuzz_http_request fuzz_commit_message fuzz_eval_files
     fuzz_llm_answer fuzz_web fuzz_wandb fuzz_discord fuzz_recordings fuzz_github_page fuzz_discord_api fuzz_markdown fuzz_webhook"
TARGETS="${UMWELT_FUZZ_TARGETS:-$ALL}"
# Without precompiled headers: this build is where a file that forgot an
# include fails (the main build's header hides it).
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DUMWELT_PCH=OFF \
  -DUMWELT_BUILD_FUZZ=ON -DUMWELT_BUILD_TESTS=OFF -DUMWELT_BUILD_BENCH=OFF >/dev/null
# shellcheck disable=SC2086
cmake --build "$BUILD" --target $TARGETS >"$BUILD/build.log" 2>&1 || { tail -40 "$BUILD/build.log"; echo "fuzz: the build failed" >&2; exit 1; }

# The seeds directory each target starts from.
seeds_of() {
  case $1 in
    fuzz_github_page) echo page ;; fuzz_recordings) echo recordings ;; fuzz_markdown) echo markdown ;;
    fuzz_web) echo web ;; fuzz_discord) echo discord ;; fuzz_link_header) echo link ;;
    fuzz_http_request) echo http ;; fuzz_commit_message) echo commit ;;
    *) echo "${1#fuzz_}" ;;
  esac
}

SEEDS="$BUILD/seeds"
rm -rf "$SEEDS"; mkdir -p "$SEEDS"/{page,recordings,link,markdown,web,discord,http,commit}
for d in fuzz/seeds/*/; do cp -r "$d" "$SEEDS/"; done
cp examples/*.md tests/golden/*.html "$SEEDS/markdown/" 2>/dev/null || true
cp examples/github/*.json "$SEEDS/page/"
cp examples/discord/*.json "$SEEDS/discord/"
cp examples/wandb/*.json "$SEEDS/wandb/"
cp tests/golden/*.html "$SEEDS/web/" 2>/dev/null || true
printf '<html><head><title>t</title><script>var x</script></head><body><main><h1>A</h1><p>x <a href="https://e.com">l</a></main></body></html>' > "$SEEDS/web/page.html"
printf '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=9>; rel="last"' > "$SEEDS/link/gh"
printf 'See #12, o/r#7 and https://github.com/a/b/pull/9 on 2024-05-01T10:00:00+02:00 parseHTTPResponse' > "$SEEDS/link/text"
if [ -d "$DATA/github-api-recordings" ]; then
  cp "$DATA"/github-api-recordings/pygithub-replaydata/*.txt "$SEEDS/recordings/"
  for f in "$DATA"/github-api-recordings/octokit-fixtures/scenarios/api.github.com/*/raw-fixture.json; do
    cp "$f" "$SEEDS/recordings/octokit-$(basename "$(dirname "$f")").json"
  done
  # Each recorded response body is a page seed; each Link header a link seed.
  i=0
  for f in "$DATA"/github-api-recordings/pygithub-replaydata/*.txt; do
    awk 'NR%11==10' "$f" | while IFS= read -r body; do
      [ -n "$body" ] && printf '%s' "$body" > "$SEEDS/page/rec-$(basename "$f" .txt)-$((i++))"
    done
    grep -o "('link', '[^']*')" "$f" | head -3 | sed "s/('link', '//; s/')$//" > "$SEEDS/link/$(basename "$f" .txt)" || true
  done
else
  echo "fuzz: $DATA/github-api-recordings absent; GitHub targets seeded from examples/ only"
fi
if [ -d "$DATA/discord" ]; then
  cp "$DATA"/discord/dce-cre8r-dao/channel_998527456925462549.json "$SEEDS/discord/"
  n=0
  for f in "$DATA"/discord/infrahub-qa-forum/1*.json; do
    cp "$f" "$SEEDS/discord/"; n=$((n + 1)); [ $n -lt 20 ] || break
  done
  # API thread dumps ({thread, messages}) become whole API conversations: a
  # channel list holding the thread's parent, the thread as active, no
  # archived threads, then its messages as a page.
  if command -v node >/dev/null; then
    node -e '
      const fs = require("fs"); const [out, ...files] = process.argv.slice(1);
      for (const f of files) {
        for (const [i, d] of JSON.parse(fs.readFileSync(f, "utf8")).slice(0, 3).entries()) {
          const t = d.thread || {};
          const channels = [{id: t.parent_id || "1", type: 15, name: "forum", guild_id: t.guild_id}];
          const pieces = [channels, {threads: [t]}, {threads: []}, [], d.messages || []];
          fs.writeFileSync(`${out}/${require("path").basename(f)}-${i}`, pieces.map(p => JSON.stringify(p)).join("\x1e"));
        }
      }' "$SEEDS/discord_api" $(ls "$DATA"/discord/infrahub-qa-forum/1*.json | head -10)
  fi
else
  echo "fuzz: $DATA/discord absent; Discord targets seeded from examples/ and fuzz/seeds/ only"
fi
if [ -d "$DATA/mumwelt-evals/evals/questions" ]; then
  cp "$DATA"/mumwelt-evals/evals/questions/*.json "$SEEDS/eval_files/"
fi
for c in cranfield/cran.all.1400:cranfield/cran.qry:cranfield/cranqrel cisi/CISI.ALL:cisi/CISI.QRY:cisi/CISI.REL; do
  IFS=: read -r docs queries rels <<<"$c"
  if [ -f "$DATA/$docs" ]; then  # the first records of each file, as three pieces
    { head -c 6000 "$DATA/$docs"; printf '\x1e'; head -c 3000 "$DATA/$queries"; printf '\x1e'; head -n 60 "$DATA/$rels"; } \
      > "$SEEDS/eval_files/$(dirname "$docs").smart"
  fi
done

printf '/api/threads/tinylm-102\x1eumwelt_session=0123456789abcdef0123456789abcdef; a=b\x1ebytes=0-99\x1elocalhost:8080' > "$SEEDS/http/ok"
printf 'Merge pull request #12 from ann/eval\n\nEvaluation loop' > "$SEEDS/commit/merge"
printf "Merge pull request 'Add x' (#4) from a/b into main" > "$SEEDS/commit/gitea"
printf 'Fix the loss (#310)\n\nSee merge request acme/tinylm!7' > "$SEEDS/commit/squash"
if [ $MODE = long ]; then
  if command -v node >/dev/null; then
    for d in "$SEEDS"/*/; do node fuzz/shrink-seeds.mjs "$d" 16384; done
  else
    echo "fuzz: node absent; long runs start from the seeds as they are"
  fi
fi
# Runs of what patterns repeat over, for every target (after the cut
# above): one long input used to kill a thread. Each target first runs the
# 1 MiB runs once each, then fuzzes from seeds holding 64 KiB runs, still on
# inputs of up to 1 MiB: with the 1 MiB runs in the corpus nearly every
# execution copied and parsed one (66 a second against 2,458 for
# fuzz_manifest, 2026-12-07), and 64 KiB of one character already overflows
# a stack that recurses once a character.
LONG="$BUILD/long-runs"
rm -rf "$LONG"; mkdir -p "$LONG"
python3 - "$SEEDS" "$LONG" <<'PY'
import os, sys
units = [" ", "(", "#", "/", "\\", "a", "%", "x/", "(#1) ", "](", "[a](b", "a|b|", "%0a", "\x1e"]
def run(i, u, size):
    body = (u * (size // len(u)))[: size - 64]
    return ("Merge pull request #12 from " if i % 2 else "") + body + " (#3)"
for i, u in enumerate(units):
    with open(os.path.join(sys.argv[2], "long-%d" % i), "w") as f:
        f.write(run(i, u, 1 << 20))
    for d in os.listdir(sys.argv[1]):
        with open(os.path.join(sys.argv[1], d, "long-%d" % i), "w") as f:
            f.write(run(i, u, 1 << 16))
PY

WORKERS=1
[ $MODE = long ] && WORKERS=$(nproc)
# The long runs' ledger: one line a run, "TARGET EXECUTIONS SECONDS CRASHES
# DATE COMMIT". A target's total is the sum of its lines.
LEDGER="$BUILD/long-ledger"
done_so_far() { awk -v t="$1" '$1 == t { n += $2 } END { print n + 0 }' "$LEDGER" 2>/dev/null || echo 0; }
# Stopping a long run: the workers get the signal, print their counts
# (-print_final_stats) and exit; the run is written down, and no further
# target starts.
stopping=0
pids=()
trap 'stopping=1; kill -INT "${pids[@]}" 2>/dev/null || true' INT TERM
status=0
for target in $TARGETS; do
  [ $stopping = 0 ] || break
  seeds="$SEEDS/$(seeds_of "$target")"
  work="$BUILD/corpus-$target"; mkdir -p "$work"
  if [ $MODE = long ]; then
    before=$(done_so_far "$target")
    left=$((RUNS - before))
    if [ $left -le 0 ]; then
      echo "fuzz: $target: $before executions in the ledger (at least $RUNS): done"
      continue
    fi
    limits=(-runs=$(((left + WORKERS - 1) / WORKERS)) -max_len=1048576 -print_funcs=0 -print_final_stats=1)
  else
    limits=(-max_total_time="$SECONDS_PER_TARGET" -max_len=1048576)
  fi
  start=$(date +%s)
  result=ok
  "./$BUILD/fuzz/$target" "$LONG"/long-* -rss_limit_mb=2048 -timeout=120 \
    -artifact_prefix="$BUILD/crash-$target-" >"$BUILD/$target.long.log" 2>&1 || { result=CRASH; tail -40 "$BUILD/$target.long.log"; }
  [ $stopping = 0 ] || break
  pids=()
  for w in $(seq 1 "$WORKERS"); do
    "./$BUILD/fuzz/$target" "$work" "$seeds" "${limits[@]}" -seed="$w" -rss_limit_mb=2048 -timeout=120 \
      -artifact_prefix="$BUILD/crash-$target-" >"$BUILD/$target.$w.log" 2>&1 &
    pids+=($!)
  done
  # `wait` returns early when a trapped signal arrives: wait again until
  # every worker has written its counts (libFuzzer exits 72 when stopped).
  for p in "${pids[@]}"; do
    while :; do
      wait "$p" && rc=0 || rc=$?
      kill -0 "$p" 2>/dev/null || break
    done
    [ $rc = 0 ] || { [ $stopping = 1 ] && [ $rc = 72 ]; } || result=CRASH
  done
  execs=0
  for w in $(seq 1 "$WORKERS"); do
    n=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$BUILD/$target.$w.log" | grep -oE '[0-9]+$' ||
      grep -oE 'Done [0-9]+ runs' "$BUILD/$target.$w.log" | grep -oE '[0-9]+' || echo 0)
    execs=$((execs + n))
  done
  seconds=$(($(date +%s) - start))
  echo "fuzz: $target: the 1 MiB runs, then $execs executions in ${seconds}s ($WORKERS worker(s)): $result"
  if [ $MODE = long ]; then
    crashes=0; [ $result = ok ] || crashes=1
    echo "$target $execs $seconds $crashes $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null || echo -)" >>"$LEDGER"
    echo "fuzz: $target: $((before + execs)) of $RUNS executions in the ledger ($LEDGER)"
  fi
  if [ $result != ok ]; then
    status=1
    for w in $(seq 1 "$WORKERS"); do grep -q "Done [0-9]* runs" "$BUILD/$target.$w.log" || tail -40 "$BUILD/$target.$w.log"; done
  fi
done
exit $status
