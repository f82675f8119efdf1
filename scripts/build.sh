#!/usr/bin/env bash
# Configures and builds umwelt (with tests and benchmarks) into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# The compiler's output is kept in build/build.log too: CI refuses a build
# with warnings (.ci/run).
cmake --build build -j"$(nproc)" 2>&1 | tee build/build.log
