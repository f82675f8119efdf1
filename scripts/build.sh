#!/usr/bin/env bash
# Configures and builds umwelt into build/: everything (tests and benchmarks
# too), or with --product only the `umwelt` program and its modules, quietly
# (one line of progress; the compiler's errors in full when it fails).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--product" ]; then
  # A build folder of its own, so it never turns the full build's tests off.
  cmake -S . -B build-product -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUMWELT_BUILD_TESTS=OFF \
    -DUMWELT_BUILD_BENCH=OFF >/dev/null
  echo "building umwelt (about 5 minutes on 2 cores the first time)..."
  if ! cmake --build build-product -j"$(nproc)" --target umwelt umwelt-pdf umwelt-fasttext >build-product/build.log 2>&1; then
    grep -B2 -A12 "error" build-product/build.log | head -80 >&2 || tail -40 build-product/build.log >&2
    echo "build: failed (the whole log: build-product/build.log)" >&2
    exit 1
  fi
  exit 0
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUMWELT_BUILD_TESTS=ON -DUMWELT_BUILD_BENCH=ON >/dev/null
# The compiler's output is kept in build/build.log too: CI refuses a build
# with warnings (.ci/run).
cmake --build build -j"$(nproc)" 2>&1 | tee build/build.log
