#!/usr/bin/env bash
# Round 8 on the H200 (docs/performance-history.md): the redesign's speed against the code before it, the
# tree engine's speed and accuracy, and nbody record's frame rate. Runs on the device after
# `bash .devtest/device_test.sh stage`, from the repository root:
#   bash docs/experiments/h200_round8.sh NEW_NBODY OLD_NBODY [parts...]
# parts: before-after tree record (all when none given). Results go to $OUT.
set -u
NEW=$1 OLD=$2
shift 2
PARTS=${*:-before-after tree record}
OUT=${OUT:-/tmp/round8}
mkdir -p "$OUT"
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
rows() { grep -E '^(fragment|compute|tree|cpu) ' ; }

before_after() {
  echo "== before (3607b34) and after the redesign: N = 16384, Euler, 7 repetitions, interleaved"
  for round in 1 2; do
    for binary in "$OLD" "$NEW"; do
      echo "-- $binary round $round"
      "$binary" bench --engine fragment,compute --method euler --bodies 16384 --repetitions 7 2>/dev/null | rows
    done
  done
}

tree() {
  echo "== tree: accuracy at the defaults, 1M (Plummer, uniform sphere)"
  for scene in plummer uniform-sphere; do
    timeout 120 "$NEW" accuracy --engine tree --scene "$scene" --bodies 1048576 --json "$OUT/accuracy-$scene-1m.json" -q
  done
  echo "== tree: N sweep, Euler (compute up to 1M)"
  for n in 16384 65536 262144 1048576 4194304 16777216; do
    engines=tree; [ "$n" -le 1048576 ] && engines=tree,compute
    timeout 150 "$NEW" bench --engine "$engines" --bodies "$n" --repetitions 3 --seconds 0.3 --json "$OUT/sweep-$n.json" 2>/dev/null | rows
  done
  echo "== tree: theta and walk layout at 1M"
  for theta in 0.35 0.43 0.5 0.6; do
    timeout 60 "$NEW" bench --engine tree --set theta=$theta --bodies 1048576 --repetitions 3 --seconds 0.3 2>/dev/null | grep -E '^tree'
  done
  for setting in bodies-per-thread=2 group-size=32 group-size=128 leaf-size=16; do
    timeout 60 "$NEW" bench --engine tree --set $setting --bodies 1048576 --repetitions 3 --seconds 0.3 2>/dev/null | grep -E '^tree'
  done
  echo "== tree: methods at 1M"
  timeout 120 "$NEW" bench --engine tree --method rk2,rk4,leapfrog --bodies 1048576 --repetitions 3 --seconds 0.3 2>/dev/null | rows
  echo "== tree: the largest N"
  for n in 67108864; do timeout 120 "$NEW" bench --engine tree --bodies $n --steps 2 --repetitions 2 2>&1 | tail -4; done
}

record() {
  echo "== record: 1920 x 1080, N = 16384, compute engine, 600 frames"
  timeout 120 "$NEW" record --engine compute --bodies 16384 --frames 600 --width 1920 --height 1080 --out /tmp/r.mp4 2>&1 | tail -4
  ls -la /tmp/r.mp4
}

for part in $PARTS; do
  case $part in
    before-after) before_after ;;
    tree) tree ;;
    record) record ;;
  esac
done
