#!/usr/bin/env bash
# Round 26 (docs/performance-history.md): what --collisions merge costs once the GPU engines screen
# for contacts in their force passes (docs/collisions.md, "The GPU engines' screen"), with radii so
# small that no body touches. Run on the device after tools/device_test.sh stage:
#   bash docs/experiments/h200_round26_screen.sh BUILD/nbody OUT_DIR
# simulate's own timing line ("K steps in S s"), without and with --collisions, twice in
# alternating order: the fragment and compute engines at 16384 Plummer bodies (compute with
# leapfrog, whose last pass screens, and RK4, whose first does), the tree at 1M. Steps enough for
# about five seconds of work each (kernels compile in the first second).
set -uo pipefail
nbody=${1:?nbody binary}
out=${2:?output folder}
mkdir -p "$out"
timed() {  # NAME OPTIONS...
  local name=$1
  shift
  "$nbody" simulate --scene plummer -o "$out/$name.nbody" "$@" >"$out/$name.txt" 2>&1
  echo "== $name: $(grep -m1 -E 'steps in' "$out/$name.txt")"
  rm -f "$out/$name.nbody"
}
pair() {  # NAME OPTIONS...: off, then merge
  local name=$1
  shift
  timed "$name-off-$round" "$@"
  timed "$name-merge-$round" "$@" --collisions merge --radius 1e-9
}
for round in 1 2; do
  pair fragment-16384-leapfrog --engine fragment --bodies 16384 --method leapfrog --steps 2000
  pair compute-16384-leapfrog --engine compute --bodies 16384 --method leapfrog --steps 30000
  pair compute-16384-rk4 --engine compute --bodies 16384 --method rk4 --steps 7500
  pair tree-1048576-leapfrog --engine tree --bodies 1048576 --method leapfrog --steps 600
done
