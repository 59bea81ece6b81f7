#!/usr/bin/env bash
# Installs the Debian 12 packages nbody-gl needs, and only those that are missing.
# Idempotent; works as root or through sudo.
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  python3-glad python3-matplotlib libglm-dev libcli11-dev libgtest-dev
  libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri
  libglfw3-dev libimgui-dev libstb-dev nlohmann-json3-dev xvfb xauth
  libavcodec-dev libavformat-dev libswscale-dev libavutil-dev
  clang libclang-rt-14-dev clang-format
  libopenmpi-dev openmpi-bin
  libhdf5-dev zlib1g-dev
  libboost-dev  # Boost.Beast and Asio, header-only: the server of `nbody serve`
  libturbojpeg0-dev
  # Readers of GADGET and TIPSY files that nbody did not write, for tests/tools/formats_test.py:
  # h5dump, splash, h5py and yt (~80 packages, ~15 s to install).
  hdf5-tools splash python3-h5py python3-yt
  # A real browser, headless, steering `nbody serve` in tests/browser/serve_browser_test.py.
  chromium chromium-driver python3-selenium
  # The web page (tools/web.sh): Debian's Emscripten; the sources of Dear ImGui and zlib it builds
  # come from Debian's source packages, fetched by tools/web.sh.
  emscripten
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null; then
  as_root=(sudo)
else
  echo "setup: missing packages (${missing[*]}) and neither root nor sudo to install them" >&2
  exit 1
fi
echo "setup: installing ${missing[*]}"
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
