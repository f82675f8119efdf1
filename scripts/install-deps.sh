#!/usr/bin/env bash
# Installs from Debian's packages what umwelt needs to build and run; with
# --tests also what only the tests, checks and benchmarks need (GoogleTest,
# Chromium, clang-tidy, wrk, ...; openssh-client, xtrans-dev, libxt6, libsm6 and
# others for the changelogs the writing evals replay) and the test-only npm packages
# (tests/mcp).
# Runs apt-get as root (directly, or through sudo).
set -euo pipefail
PACKAGES=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libsqlite3-dev libcurl4-openssl-dev nlohmann-json3-dev libcli11-dev libxxhash-dev libmicrohttpd-dev
  libcmark-gfm-dev libcmark-gfm-extensions-dev libfasttext-dev libeigen3-dev
  libgit2-dev libgumbo-dev libstemmer-dev libre2-dev libpoppler-cpp-dev libssl-dev libwebsockets-dev libopenblas-dev
  katex nodejs
)
TEST_PACKAGES=(
  libgtest-dev libgmock-dev libbenchmark-dev libcpp-httplib-dev
  clang clang-tidy libclang-rt-14-dev binutils sqlite3
  chromium fonts-liberation wrk python3 python3-numpy
  openssh-client xtrans-dev libxt6 libsm6 xserver-common libxft2 libxaw7 libxfont2 libxpm4 xauth libice6 libxdmcp6
  libxfixes3 libxrender1 libxtst6 libxau6 libxmu6 libxv1 libxkbfile1 libxss1 libxinerama1 libxcomposite1
  libxdamage1 libxxf86vm1 libfontenc1 xdg-user-dirs libxcb-util1 libxcb-image0 libxxf86dga1 libmd0
  libxcb-icccm4 libxcb-xrm0 libxres1 libxvmc1 libdmx1 libxcb-keysyms1 libxcb-render-util0 libxcb-cursor0
  xorg-docs-core libxshmfence1
)
[ "${1:-}" = "--tests" ] && PACKAGES+=("${TEST_PACKAGES[@]}")
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -ne 0 ] || [ "${UMWELT_FORCE_APT:-0}" = 1 ]; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}"
fi
# With --tests: the upstream changelogs of packages whose installation would
# bring a whole X server (systemd, udev) for one file, taken out of the
# packages Debian's archive holds into build-changelogs/, where the tests
# that replay those histories read them (each skips, saying so, without it).
[ "${1:-}" = "--tests" ] || exit 0
LOGS="$(cd "$(dirname "$0")/.." && pwd)/build-changelogs"
for p in xserver-xorg-video-ati xserver-xorg-video-nouveau xserver-xorg-video-intel xserver-xorg-input-evdev \
  xserver-xorg-input-synaptics xserver-xorg-input-wacom xserver-xorg-video-amdgpu xserver-xorg-input-libinput xinit \
  xserver-xorg-video-openchrome xserver-xorg-video-vmware xserver-xorg-input-joystick xserver-xorg-input-mouse \
  xserver-xorg-video-r128 xserver-xorg-video-fbdev xserver-xorg-video-vesa xserver-xorg-video-cirrus \
  xserver-xorg-video-mach64 xserver-xorg-input-elographics xserver-xorg-video-mga xserver-xorg-video-savage \
  xserver-xorg-video-siliconmotion xserver-xorg-video-tdfx xserver-xorg-video-trident xinput xserver-xorg-input-kbd \
  xserver-xorg-video-neomagic xserver-xorg-video-dummy twm xdm libfs6 xfonts-encodings xserver-xorg-video-sisusb \
  libmtdev1 xorg-sgml-doctools xbitmaps xcompmgr xbacklight xcursor-themes xclip libspectre1 libcacard0 \
  libdmapsharing-3.0-2 libtelepathy-glib0 libvte-2.91-0 libdvdread8 libclutter-1.0-0 telepathy-mission-control-5 \
  libfarstream-0.2-5 libgnome-menu-3-0 desktop-file-utils telepathy-idle gnome-keyring libcmis-0.5-5v5 pm-utils \
  libixion-0.17-0 libgconf-2-4 yelp-xsl gnome-themes-extra mousepad nemo parole nitrogen xfce4-terminal xfburn \
  libtelepathy-logger3 gigolo telepathy-haze cinnamon-desktop-data cinnamon-control-center-data xfce4-dict strace \
  wget grep tar libtiff6 findutils man-db gnupg; do
  [ -s "$LOGS/$p/changelog.gz" ] && continue
  tmp=$(mktemp -d) && chmod 755 "$tmp"
  if (cd "$tmp" && apt-get download -qq "$p" >/dev/null 2>&1); then
    mkdir -p "$LOGS/$p"
    # A -data package may keep it in its program's folder (cinnamon-control-center).
    doc="./usr/share/doc/$p/changelog.gz"
    files=$(dpkg-deb -c "$tmp"/*.deb)
    grep -q " $doc\$" <<<"$files" || doc=$(grep -oE '\./usr/share/doc/[^/]+/changelog\.gz$' <<<"$files" | head -1)
    dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -xO "$doc" > "$LOGS/$p/changelog.gz"
  else
    echo "install-deps: $p could not be downloaded; the test on its history will skip" >&2
  fi
  rm -rf "$tmp"
done
# With --tests: the official MCP SDK the MCP tests drive umwelt with, pinned
# by the lock file, from the npm registry (test-only; nothing at build or run
# time, so the demo never needs it). npm comes with some builds of nodejs and
# separately in Debian's.
if ! command -v npm >/dev/null; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends npm
fi
cd "$(dirname "$0")/../tests/mcp"
if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.umwelt-lock; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.umwelt-lock
fi
