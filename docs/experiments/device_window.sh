#!/usr/bin/env bash
# Runs on the H100 device machine (docs/performance-history.md, "The window on the H100"): the window
# `nbody run` on the GPU through NVIDIA's GLX on a carried Xvfb, beside `nbody bench` with the same
# settings, to compare the panel's figures with the benchmark's. Not used by CI.
#
# Carry .gl (glvnd loaders, see docs/experiments/device_probe.sh), .xvfb, .devbuild/nbody and .devbuild/lib
# (the libraries nbody links that the machine lacks: libglfw, libX11, libxcb, ...). Fill .xvfb here,
# once, with Debian 12's Xvfb and what it needs besides the machine's own libraries:
#   o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
#   mkdir -p .xvfb /tmp/amd64/partial && apt-get $o update && (cd .xvfb && apt-get $o download \
#     xvfb x11-xkb-utils xkb-data libgl1-mesa-dri libglx-mesa0 libglapi-mesa libllvm15 libz3-4 \
#     libxml2 libicu72 libxfont2 libfontenc1 libfreetype6 libbrotli1 libpng16-16 libpixman-1-0 \
#     libunwind8 libxkbfile1 libxshmfence1 libedit2 libelf1 libexpat1 libsensors5 \
#     libsensors-config libpciaccess0 libbsd0 libmd0 libdrm2 libdrm-common libdrm-amdgpu1 \
#     libdrm-intel1 libdrm-nouveau2 libdrm-radeon1 libx11-6 libx11-data libx11-xcb1 libxau6 \
#     libxdmcp6 libxcb1 libxcb-dri2-0 libxcb-dri3-0 libxcb-glx0 libxcb-present0 libxcb-randr0 \
#     libxcb-shm0 libxcb-sync1 libxcb-xfixes0 libxext6 libxfixes3 libxi6 libxinerama1 libxrandr2 \
#     libxrender1 libxcursor1 libxxf86vm1)
# Xvfb needs a GLX-capable Mesa driver (swrast) to offer GLX at all; the window's own context is
# NVIDIA's (__GLX_VENDOR_LIBRARY_NAME=nvidia), on the H100.
# Environment: OUT (logs and screenshots), BODIES (16384), FRAMES (250), ENGINES ("fragment compute").
set -u
OUT=${OUT:-/tmp/window_check}; mkdir -p "$OUT"
BODIES=${BODIES:-16384}; FRAMES=${FRAMES:-250}; ENGINES=${ENGINES:-fragment compute}
NBODY=.devbuild/nbody; X=/opt/x
XL=$X/usr/lib/x86_64-linux-gnu:$X/lib/x86_64-linux-gnu

for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p "$X"
for f in .xvfb/*.deb; do dpkg -x "$f" "$X"; done  # a private prefix: unpacked into / they can break it
# Xvfb runs xkbcomp from its compiled-in /usr/bin; -xkbdir only moves the keymap data.
[ -x /usr/bin/xkbcomp ] || ln -s "$X/usr/bin/xkbcomp" /usr/bin/xkbcomp

rm -f /tmp/.X11-unix/X99 /tmp/.X99-lock
LD_LIBRARY_PATH=$XL LIBGL_DRIVERS_PATH=$X/usr/lib/x86_64-linux-gnu/dri \
  "$X/usr/bin/Xvfb" :99 -screen 0 1280x800x24 -ac -nolisten tcp -xkbdir "$X/usr/share/X11/xkb" \
  +extension GLX >"$OUT/xvfb.log" 2>&1 &
xvfb=$!
for _ in $(seq 100); do [ -S /tmp/.X11-unix/X99 ] && break; sleep 0.1; done
[ -S /tmp/.X11-unix/X99 ] || { echo "Xvfb did not start:"; cat "$OUT/xvfb.log"; exit 1; }

echo "== bench"
(unset DISPLAY; LD_LIBRARY_PATH=.devbuild/lib timeout 180 "$NBODY" bench --engine "$(echo $ENGINES | tr ' ' ,)" \
   --method euler --bodies "$BODIES" --repetitions 5) 2>&1 | tee "$OUT/bench.txt"
for engine in $ENGINES; do
  echo "== window $engine"
  DISPLAY=:99 LD_LIBRARY_PATH=.devbuild/lib:$XL __GLX_VENDOR_LIBRARY_NAME=nvidia timeout 180 \
    "$NBODY" run --engine "$engine" --method euler --bodies "$BODIES" --frames "$FRAMES" --no-vsync \
    --print-stats --screenshot "$OUT/window_$engine.png" 2>&1 | tee "$OUT/window_$engine.txt"
done
kill $xvfb
