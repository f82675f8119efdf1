#!/usr/bin/env bash
# The main job on the embedded default: no network, no LLM, no keys.
# Builds a corpus from the recorded GitHub API pages in examples/github,
# searches it, and shows a thread whole.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
UMWELT=build/src/cli/umwelt
CORPUS=out/demo.db
mkdir -p out
rm -f "$CORPUS" "$CORPUS"-wal "$CORPUS"-shm "$CORPUS".kwidx
echo "== import the recorded GitHub pages"
$UMWELT --corpus "$CORPUS" import github examples/github/*.json
echo; echo "== status"
$UMWELT --corpus "$CORPUS" status
echo; echo "== search: MFU on H100"
$UMWELT --corpus "$CORPUS" search "MFU H100" -k 5
echo; echo "== embed the corpus with the builtin model (no network), then search by meaning and keyword"
$UMWELT --corpus "$CORPUS" index
$UMWELT --corpus "$CORPUS" search "why is training slower than it should be" -k 3
echo; echo "== show the thread of the top hit's issue, last two comments"
$UMWELT --corpus "$CORPUS" show https://github.com/acme/tinylm/issues/102 --tail 2
echo; echo "== publish the example report (examples/report.md) with hover cards from the corpus"
$UMWELT --corpus "$CORPUS" publish examples/report.md --out out/report.html
echo; echo "corpus written to $CORPUS, page to out/report.html; try: $UMWELT --corpus $CORPUS search \"checkpoint restore\" --json"
