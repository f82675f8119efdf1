#!/usr/bin/env bash
# The main job on the embedded default: no network, no LLM, no keys.
# Builds a corpus from the recorded GitHub API pages in examples/github, a
# Discord export and W&B runs of the same fictional project, and a second one
# from this repository's own history and code; searches them, shows threads
# whole, and ends with a cited research report (extractive: no LLM) as an
# HTML page and the weekly digests of the project's last two weeks as a site.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh --product
UMWELT=build-product/src/cli/umwelt
CORPUS=out/demo.db  # the example project
CODE=out/code.db    # this repository
mkdir -p out
for db in "$CORPUS" "$CODE"; do rm -f "$db" "$db"-wal "$db"-shm "$db".kwidx "$db".prose.words "$db".vec-prose; done
echo "== import the recorded GitHub pages"
$UMWELT --corpus "$CORPUS" import github examples/github/*.json
echo; echo "== import a Discord export and W&B runs of the same project"
$UMWELT --corpus "$CORPUS" import discord examples/discord/training.json --repo acme/tinylm
$UMWELT --corpus "$CORPUS" import wandb examples/wandb/runs.json --repo acme/tinylm
echo; echo "== status"
$UMWELT --corpus "$CORPUS" status
echo; echo "== search: MFU on H100"
$UMWELT --corpus "$CORPUS" search "MFU H100" -k 5
echo; echo "== embed the corpus with the builtin model (no network), then search by meaning and keyword"
$UMWELT --corpus "$CORPUS" index
$UMWELT --corpus "$CORPUS" search "why is training slower than it should be" -k 3
echo; echo "== show the thread of the top hit's issue, last two comments, and what links to it from Discord and W&B"
$UMWELT --corpus "$CORPUS" show https://github.com/acme/tinylm/issues/102 --tail 2
echo; echo "== a Discord message in its conversation, and the run it points to"
$UMWELT --corpus "$CORPUS" show https://discord.com/channels/1300000000000000000/1300000000000000100/1310000000000000003 --around 2
$UMWELT --corpus "$CORPUS" run acme/tinylm/h100-prefetch-2
if git rev-parse --git-dir >/dev/null 2>&1; then
  echo; echo "== a corpus of this repository (commits, code on the default branch, active branches): how it parses Discord exports"
  $UMWELT --corpus "$CODE" sync git .
  $UMWELT --corpus "$CODE" search "streaming DiscordChatExporter export" --source code -k 3 --fts-only
fi
echo; echo "== publish the example report (examples/report.md) with hover cards from the corpus"
$UMWELT --corpus "$CORPUS" publish examples/report.md --out out/report.html
echo; echo "== ask a research question: an extractive report (no LLM), verified and published"
$UMWELT --corpus "$CORPUS" ask "What MFU do we get on H100s, and what is still blocking it?" \
  --md out/answer.md --out out/answer.html --trace out/answer-trace.json
sed -n '/## Short answer/,/^## /p' out/answer.md | head -12
echo; echo "== the weekly digests of the project's last two weeks: XS and S tiers, a site with a feed (extractive: no LLM)"
$UMWELT --corpus "$CORPUS" digest --week 2026-11-23 --weeks 2 --out out/summaries --tiers xs,s \
  --site-url "file://$PWD/out/summaries"
$UMWELT --corpus "$CORPUS" summaries list
echo; echo "corpus written to $CORPUS; pages: out/report.html, out/answer.html, out/summaries/index.html; try: $UMWELT --corpus $CORPUS search \"checkpoint restore\" --json"
