#!/usr/bin/env bash
# Round 27 (docs/performance-history.md): what --collisions merge costs with the direct engines'
# screen in one min a pair (docs/collisions.md, "The GPU engines' screen"), with radii so small that
# no body touches; timed by `nbody bench` (medians of 5 repetitions of about a second, the watch's
# windows as simulate makes them). Run on the device after tools/device_test.sh stage:
#   bash docs/experiments/h200_round27_screen.sh BUILD/nbody OUT_DIR
# Each case without and with --collisions, twice in alternating order.
set -uo pipefail
nbody=${1:?nbody binary}
out=${2:?output folder}
mkdir -p "$out"
timed() {  # NAME OPTIONS...
  local name=$1
  shift
  "$nbody" bench --scene plummer --repetitions 5 --seconds 1 --json "$out/$name.json" "$@" \
    >"$out/$name.txt" 2>&1
  echo "== $name: $(grep -E '^(fragment|compute|tree) ' "$out/$name.txt" | tr -s ' ')"
}
pair() {  # NAME OPTIONS...: off, then merge
  local name=$1
  shift
  timed "$name-off-$round" "$@"
  timed "$name-merge-$round" "$@" --collisions merge --radius 1e-9
}
for round in 1 2; do
  pair fragment-16384-leapfrog --engine fragment --bodies 16384 --method leapfrog
  pair compute-16384-leapfrog --engine compute --bodies 16384 --method leapfrog
  pair compute-16384-rk4 --engine compute --bodies 16384 --method rk4
  pair compute-262144-leapfrog --engine compute --bodies 262144 --method leapfrog
  pair tree-1048576-leapfrog --engine tree --bodies 1048576 --method leapfrog
done
