#!/usr/bin/env bash
# Installs what umwelt needs to build and test, from Debian's packages.
# Runs apt-get as root (directly, or through sudo).
set -euo pipefail
PACKAGES=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libsqlite3-dev libcurl4-openssl-dev nlohmann-json3-dev libcli11-dev libxxhash-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcpp-httplib-dev libmicrohttpd-dev
  libcmark-gfm-dev libcmark-gfm-extensions-dev libfasttext-dev
  libgit2-dev libgumbo-dev libpoppler-cpp-dev libssl-dev
  clang libclang-rt-14-dev sqlite3
  katex nodejs chromium fonts-liberation wrk
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ] && [ "${UMWELT_FORCE_APT:-0}" != 1 ]; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${PACKAGES[@]}"
