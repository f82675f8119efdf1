#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test under ctest.
# Tests that read ../shared/data skip with a message when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)"
