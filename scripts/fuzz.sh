#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a bounded time,
# seeded from the real recordings in ../shared/data when present.
#   scripts/fuzz.sh [seconds-per-target]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-60}"
DATA="${UMWELT_SHARED_DATA:-../shared/data}"
BUILD=build-fuzz
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DUMWELT_BUILD_FUZZ=ON -DUMWELT_BUILD_TESTS=OFF -DUMWELT_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" --target fuzz_github_page fuzz_recordings fuzz_link_header fuzz_markdown fuzz_web fuzz_discord >/dev/null

SEEDS="$BUILD/seeds"
rm -rf "$SEEDS"; mkdir -p "$SEEDS"/{page,recordings,link,markdown,web,discord}
cp examples/*.md tests/golden/*.html "$SEEDS/markdown/" 2>/dev/null || true
cp examples/github/*.json "$SEEDS/page/"
cp examples/discord/*.json "$SEEDS/discord/"
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
  if [ -d "$DATA/discord" ]; then
    cp "$DATA"/discord/dce-cre8r-dao/channel_998527456925462549.json "$SEEDS/discord/"
    n=0
    for f in "$DATA"/discord/infrahub-qa-forum/1*.json; do
      cp "$f" "$SEEDS/discord/"; n=$((n + 1)); [ $n -lt 20 ] || break
    done
  fi
else
  echo "fuzz: $DATA absent; seeding from examples/ only"
fi

status=0
for target in fuzz_github_page fuzz_recordings fuzz_link_header fuzz_markdown fuzz_web fuzz_discord; do
  case $target in
    fuzz_github_page) seeds=page ;; fuzz_recordings) seeds=recordings ;; fuzz_markdown) seeds=markdown ;;
    fuzz_web) seeds=web ;; fuzz_discord) seeds=discord ;; *) seeds=link ;;
  esac
  work="$BUILD/corpus-$target"; mkdir -p "$work"
  log="$BUILD/$target.log"
  if "./$BUILD/fuzz/$target" "$work" "$SEEDS/$seeds" -max_total_time="$SECONDS_PER_TARGET" \
       -max_len=1048576 -rss_limit_mb=2048 -artifact_prefix="$BUILD/crash-$target-" >"$log" 2>&1; then
    result=ok
  else
    result=CRASH; status=1
  fi
  execs=$(grep -oE 'Done [0-9]+ runs' "$log" | grep -oE '[0-9]+' || true)
  echo "fuzz: $target: ${execs:-?} executions in ${SECONDS_PER_TARGET}s: $result"
  [ $result = ok ] || tail -40 "$log"
done
exit $status
