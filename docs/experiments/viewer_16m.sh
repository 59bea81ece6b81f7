#!/usr/bin/env bash
# The window as a viewer at 16.8M bodies: frames per second and the GPU time of drawing,
# paused (what viewing a state or a series costs) and running, for sprites, the projected density,
# every overlay, the histogram and picked bodies, each alone and all at once. Run on the device
# after tools/device_test.sh (its xvfb-run on NVIDIA's GLX is then on PATH under
# /opt/nbody-xvfb/bin):
#   bash docs/experiments/viewer_16m.sh BUILD/nbody OUT_DIR
set -uo pipefail
nbody=${1:?nbody binary}
out=${2:?output folder}
mkdir -p "$out"
export PATH=/opt/nbody-xvfb/bin:$PATH
N=${N:-16777216}
FRAMES=${FRAMES:-40}
base="--engine tree --scene plummer --bodies $N --width 1280 --height 800 --no-vsync --print-stats"
picked=$(seq -s, 1 262144 16777216)  # 64 bodies spread over the IDs

measure() {
  local name=$1 frames=$2
  shift 2
  local began=$SECONDS
  xvfb-run -a -s "-screen 0 1280x800x24" "$nbody" run $base --frames "$frames" "$@" >"$out/$name.out" 2>"$out/$name.err"
  local status=$?
  echo "$name (exit $status, $((SECONDS - began)) s): $(grep -m1 'run: frames' "$out/$name.out" | sed 's/.*GPU ms\/step/GPU ms\/step/')"
}

measure paused-sprites "$FRAMES" --hide-panel --paused
measure paused-density "$FRAMES" --hide-panel --paused --show density
measure paused-overlays "$FRAMES" --hide-panel --paused --overlays all
measure paused-picked "$FRAMES" --hide-panel --paused --select "$picked"
measure paused-panel-histogram "$FRAMES" --paused --histogram radius
measure running-sprites "$FRAMES" --hide-panel --steps-per-frame 1
measure running-density "$FRAMES" --hide-panel --steps-per-frame 1 --show density
measure running-overlays "$FRAMES" --hide-panel --steps-per-frame 1 --overlays all
measure running-picked "$FRAMES" --hide-panel --steps-per-frame 1 --select "$picked" --follow
measure running-panel-histogram "$FRAMES" --steps-per-frame 1 --histogram radius
# The panel shown (the histogram is its window): everything at once.
measure running-everything "$FRAMES" --steps-per-frame 1 --show density --overlays all --select "$picked" --follow \
  --histogram radius
tar -C "$out" -cf "$out.tar" . && rm -rf "$out"
