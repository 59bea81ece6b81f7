#!/usr/bin/env bash
# Builds the web page into build-web/ (or $1) with Debian's Emscripten: nbody.html, nbody.js and
# nbody.wasm, a static folder any web server serves (README: how to open it). The fragment engine,
# the scenes, the point sprites and the panel on WebGL2, from the same sources (tools/web.cmake).
set -euo pipefail
shopt -s inherit_errexit  # what fails inside $(...) ends the script too

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$root/build-web}")
mkdir -p "$build"

command -v emcmake >/dev/null || {
  echo "web: Emscripten is missing (tools/setup.sh installs Debian's emscripten)" >&2
  exit 1
}
# Emscripten's JavaScript optimiser needs acorn, which Debian installs beside its own node; a
# node from elsewhere does not look there.
acorn=$(dpkg -L node-acorn 2>/dev/null | awk '/\/acorn\/package[.]json$/ && !n++') || true
[ -n "$acorn" ] || {
  echo "web: Debian's node-acorn is missing (tools/setup.sh installs emscripten, which needs it)" >&2
  exit 1
}
NODE_PATH="$(dirname "$acorn")/..${NODE_PATH:+:$NODE_PATH}"
export NODE_PATH

# Sources of a library Debian ships for the desktop only, as Debian ships them (the version of the
# installed binary package), fetched once without touching apt's configuration: a deb-src list of
# its own in the build folder. Dear ImGui (whose core Debian ships only as a native library) and
# zlib (the PNG reader's checksums). Prints the folder that holds FILE.
debian_sources() {  # SOURCE-PACKAGE BINARY-PACKAGE FILE
  local deps="$build/deps" version found
  mkdir -p "$deps"
  found=$(find "$deps" -mindepth 2 -maxdepth 2 -name "$3" -print -quit)
  if [ -z "$found" ]; then
    version=$(dpkg-query -W -f='${source:Version}' "$2")
    mkdir -p "$deps/apt/lists/partial" "$deps/apt/parts"
    : >"$deps/apt/empty.list"
    printf '%s\n' "Types: deb-src" "URIs: http://deb.debian.org/debian" \
      "Suites: bookworm bookworm-updates" "Components: main" \
      "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" "" \
      "Types: deb-src" "URIs: http://deb.debian.org/debian-security" "Suites: bookworm-security" \
      "Components: main" "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" \
      >"$deps/apt/parts/sources.sources"
    local apt=(apt-get -qq -o "Dir::Etc::SourceList=$deps/apt/empty.list"
      -o "Dir::Etc::SourceParts=$deps/apt/parts" -o "Dir::State::Lists=$deps/apt/lists")
    ls "$deps/apt/lists" | grep -q Sources || "${apt[@]}" update >&2
    (cd "$deps" && "${apt[@]}" source --download-only "$1=$version" >&2)
    local upstream=${version#*:}
    tar -xf "$(ls "$deps/${1}_${upstream%-*}.orig.tar."* | grep -v '[.]asc$' | head -1)" -C "$deps"
    found=$(find "$deps" -mindepth 2 -maxdepth 2 -name "$3" -print -quit)
  fi
  [ -n "$found" ] || {
    echo "web: Debian's sources of $1 hold no $3" >&2
    exit 1
  }
  dirname "$found"
}

imgui=$(debian_sources imgui libimgui-dev imgui.cpp)
zlib=$(debian_sources zlib zlib1g-dev crc32.c)
emcmake cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=MinSizeRel -DNBODY_IMGUI_SOURCE_DIR="$imgui" \
  -DNBODY_ZLIB_SOURCE_DIR="$zlib" ${NBODY_WERROR:+-DNBODY_WERROR=$NBODY_WERROR} >/dev/null
cmake --build "$build" -j "$(nproc)"
echo "web: $build/nbody.html ($(du -cb "$build"/nbody.{html,js,wasm} | tail -1 | cut -f1) bytes)"
