#!/usr/bin/env bash
# Static checks over every source file, using the flags of build/ (run
# scripts/build.sh first); exits 1 on any finding.
#   scripts/check.sh thread-safety   clang's -Wthread-safety on the files that
#                                    use umwelt/thread_annotations.h
#   scripts/check.sh tidy            clang-tidy with the project's .clang-tidy,
#                                    on the files changed since .ci/tidy-base
#                                    (the last commit every file passed at)
#                                    and those that include a changed header;
#                                    when it passes on a commit, that commit
#                                    may become the base (every file changed
#                                    since the old one passed there)
#   scripts/check.sh tidy-all        clang-tidy on every file
#   scripts/check.sh no-regex        no std::regex anywhere in the code (it
#                                    backtracks and recurses once per
#                                    character: one long input kills a thread);
#                                    umwelt/pattern.h (RE2) is the matcher
#   scripts/check.sh                 no-regex, thread-safety, tidy (CI)
#   scripts/check.sh --full          no-regex, thread-safety, tidy-all, then
#                                    scripts/fuzz.sh 120 (each target two
#                                    minutes); on success records HEAD in
#                                    .ci/tidy-base (commit it). Before a release.
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
if [ "$what" = --full ]; then
  "$0" no-regex
  "$0" thread-safety
  "$0" tidy-all
  scripts/fuzz.sh 120
  git rev-parse HEAD > .ci/tidy-base
  echo "check --full: passed; .ci/tidy-base is now $(cat .ci/tidy-base)"
  exit 0
fi
status=0
if [ "$what" = no-regex ] || [ "$what" = all ]; then
  if grep -rnE 'std::(regex|sregex|smatch|cmatch|wregex)|#include <regex>' src include bench fuzz tests --include='*.cc' --include='*.h'; then
    echo "check: std::regex above; use umwelt/pattern.h (RE2, linear time) or plain parsing" >&2
    status=1
  fi
  echo "no-regex: checked"
  [ "$what" = no-regex ] && exit $status
fi
[ -f build/compile_commands.json ] || { echo "check: build/compile_commands.json missing; run scripts/build.sh" >&2; exit 2; }
jobs="$(nproc)"
# The build's commands less GCC's precompiled header, which clang cannot
# read: each file must compile from its own includes. Both checks use these.
mkdir -p build/check-db
python3 - <<'PY'
import json, shlex
db = json.load(open("build/compile_commands.json"))
for e in db:
    args, out, skip = shlex.split(e["command"]), [], False
    for i, a in enumerate(args):
        if skip: skip = False; continue
        if a == "-include" and i + 1 < len(args) and args[i + 1].endswith("cmake_pch.hxx"): skip = True; continue
        if a != "-Winvalid-pch": out.append(a)
    e["command"] = shlex.join(out)
json.dump(db, open("build/check-db/compile_commands.json", "w"), indent=1)
PY

# The files to check, with the command that compiles each, from the build.
commands() {
  python3 - "$1" <<'PY'
import json, re, sys, shlex
pattern = re.compile(sys.argv[1])
for e in json.load(open("build/check-db/compile_commands.json")):
    f = e["file"]
    if "/src/" not in f or f.endswith("_test.cc") or not pattern.search(open(f).read()):
        continue
    args = shlex.split(e["command"])[1:]
    keep, skip = [], False
    for a in args:  # drop -o/-c/-MF and the compiler's own optimisation flags
        if skip: skip = False; continue
        if a in ("-o", "-MF", "-MT", "-c"): skip = a != "-c"; continue
        if a == "-MD" or a.startswith("-O") or a == f: continue
        keep.append(a)
    print(f + "\t" + " ".join(shlex.quote(a) for a in keep))
PY
}

if [ "$what" = thread-safety ] || [ "$what" = all ]; then
  # Every file that includes a header with annotations, directly or not, is
  # simplest found by the annotations' users: the server and MCP.
  n=0
  while IFS=$'\t' read -r file flags; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    eval clang++ $flags -fsyntax-only -Wthread-safety -Werror=thread-safety "'$file'" || status=1
  done < <(commands 'thread_annotations\.h|umwelt/mcp\.h|umwelt/rerank\.h|"(engine|http_server|auth|server_impl|jobs|sessions|scheduler|snapshot)\.h"')
  echo "thread-safety: $n files checked"
fi
# The source files to tidy: all of them, or those changed since the base
# commit and those including a header changed since it (every file when the
# base is not in this clone's history).
tidy_files() {
  local all base changed
  all=$(commands '.' | cut -f1)
  base=$(cat .ci/tidy-base 2>/dev/null || true)
  if [ "$1" = all ] || [ -z "$base" ] || ! git cat-file -e "$base^{commit}" 2>/dev/null; then
    echo "$all"
    return
  fi
  changed=$(git diff --name-only "$base" -- src include; git ls-files --others --exclude-standard -- src include)
  for f in $all; do
    rel=${f#"$PWD"/}
    if grep -qxF "$rel" <<<"$changed"; then echo "$f"; continue; fi
    for h in $(grep -E '\.h$' <<<"$changed" || true); do
      name=${h#include/}
      [[ $h == src/* ]] && name=$(basename "$h")
      if grep -qF "\"$name\"" "$f"; then echo "$f"; break; fi
    done
  done
}
if [ "$what" = tidy ] || [ "$what" = tidy-all ] || [ "$what" = all ]; then
  scope=changed
  [ "$what" = tidy-all ] && scope=all
  files=$(tidy_files $scope)
  : > build/tidy.log
  if [ -n "$files" ]; then
    # shellcheck disable=SC2086
    printf '%s\n' $files | xargs -P"$jobs" -n4 clang-tidy -p build/check-db --quiet 2>/dev/null > build/tidy.log || status=1
  fi
  grep -E "(warning|error):" build/tidy.log || true
  echo "clang-tidy: $(printf '%s' "$files" | grep -c . || true) of $(commands '.' | wc -l) files checked ($scope since .ci/tidy-base), $(grep -cE "(warning|error):" build/tidy.log || true) findings"
fi
exit $status
