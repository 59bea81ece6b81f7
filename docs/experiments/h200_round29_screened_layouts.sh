#!/usr/bin/env bash
# Round 29 (docs/performance-history.md): the layouts of the direct engines' screened runs. A run
# that screens for contacts may take a layout of its own (EngineEntry::screenedSettings); the ratio
# that counts is its time against the default layout without --collisions. Each layout is timed
# with and without the screen, by `nbody bench` (medians of 5 repetitions of about a second), twice,
# and each run's GPU ms a step is printed from its JSON with all its digits.
# Run on the device after tools/device_test.sh stage:
#   bash docs/experiments/h200_round29_screened_layouts.sh BUILD/nbody OUT_DIR
set -uo pipefail
nbody=${1:?nbody binary}
out=${2:?output folder}
mkdir -p "$out"
merge=(--collisions merge --radius 1e-9)

timed() {  # NAME OPTIONS...
  local name=$1
  shift
  "$nbody" bench --scene plummer --repetitions 5 --seconds 1 --json "$out/$name.json" "$@" \
    >"$out/$name.txt" 2>&1
  local line ms
  line=$(grep -E '^(fragment|compute|tree) ' "$out/$name.txt" | tr -s ' ')
  ms=$(grep -oE '"gpu_ms_per_step": *[0-9.eE+-]+' "$out/$name.json" 2>/dev/null | grep -oE '[0-9.eE+-]+$')
  echo "== $name: ${ms:-failed: $(tail -1 "$out/$name.txt")} | $line"
}

# LABEL ENGINE BODIES SETTINGS...: the layout off and screened ("default": the engine's own).
layout_pair() {
  local label=$1 engine=$2 bodies=$3 round=$4
  shift 4
  local sets=()
  for setting in "$@"; do sets+=(--set "$setting"); done
  local common=(--engine "$engine" --bodies "$bodies" --method "${METHOD:-leapfrog}" "${sets[@]}")
  timed "$engine-$bodies-$label-off-$round" "${common[@]}"
  timed "$engine-$bodies-$label-merge-$round" "${common[@]}" "${merge[@]}"
}

compute_layouts() {  # ROUND
  layout_pair default compute 16384 "$1"
  layout_pair g512b2s32 compute 16384 "$1" group-size=512 bodies-per-thread=2 slices=32
  layout_pair g512b1s32 compute 16384 "$1" group-size=512 bodies-per-thread=1 slices=32
  layout_pair g512b4s8 compute 16384 "$1" group-size=512 bodies-per-thread=4 slices=8
  layout_pair g256b2s32 compute 16384 "$1" group-size=256 bodies-per-thread=2 slices=32
  layout_pair g256b4s32 compute 16384 "$1" group-size=256 bodies-per-thread=4 slices=32
}

fragment_layouts() {  # ROUND
  layout_pair default fragment 16384 "$1"
  layout_pair b8s4 fragment 16384 "$1" bodies-per-fragment=8 slices=4
  layout_pair b8s8 fragment 16384 "$1" bodies-per-fragment=8 slices=8
  layout_pair b8s8u1 fragment 16384 "$1" bodies-per-fragment=8 slices=8 unroll=1x1
}

# KEEP_BITS=1 (round 30): the compute layouts that keep the default's slices, and with them its
# bits (group size and bodies a thread change no bit; slices do), at 16384 (16 slices on the H200)
# and 262144 (4), leapfrog and RK4; and the fragment engine's screened row at 65536.
if [ -n "${KEEP_BITS:-}" ]; then
  for round in 1 2; do
    layout_pair default compute 16384 "$round"
    for layout in g256b2 g128b2 g256b1 g512b1; do
      group=${layout#g}
      layout_pair "${layout}s16" compute 16384 "$round" "group-size=${group%b*}" \
        "bodies-per-thread=${layout#*b}" slices=16
    done
    METHOD=rk4 layout_pair rk4-default compute 16384 "$round"
    METHOD=rk4 layout_pair rk4-g256b2s16 compute 16384 "$round" group-size=256 slices=16
    layout_pair default compute 262144 "$round"
    layout_pair g256b2s4 compute 262144 "$round" group-size=256 bodies-per-thread=2 slices=4
    layout_pair default fragment 65536 "$round"
  done
  exit 0
fi
# SCREENED_SLICES=1 (round 32): the fragment engine's committed screened layout, 8 bodies a
# fragment and 8 slices (a sum of its own: a screened run no longer gives the bits of a run
# without --collisions), against the default off, at 16384 (leapfrog and RK4) and 65536.
if [ -n "${SCREENED_SLICES:-}" ]; then
  for round in 1 2; do
    layout_pair default fragment 16384 "$round"
    METHOD=rk4 layout_pair rk4-default fragment 16384 "$round"
    layout_pair default fragment 65536 "$round"
  done
  exit 0
fi
# The GLSL ES edits of 169ae91 (rk_combine.glsl's stages unrolled, force.frag's outputs written
# with constant indices) must leave the desktop's figures as they were: fragment 16384 Euler
# 222.56 steps/s at f5fec79 (docs/performance.md), within 2%.
unchanged_figures() {  # ROUND
  for method in euler rk4; do
    for engine in fragment compute; do
      timed "$engine-16384-$method-$1" --engine "$engine" --bodies 16384 --method "$method"
    done
  done
}
# FINAL=1: the committed screened layouts (compute: groups of 256 in the passes that screen),
# the default off and screened, with the figures of performance.md beside them, twice.
if [ -n "${FINAL:-}" ]; then
  for round in 1 2; do
    unchanged_figures "$round"
    for engine in compute fragment; do layout_pair default "$engine" 16384 "$round"; done
    METHOD=rk4 layout_pair rk4-default compute 16384 "$round"
  done
  exit 0
fi
for round in 1 2; do
  unchanged_figures "$round"
  compute_layouts "$round"
  fragment_layouts "$round"
done
