#!/usr/bin/env bash
# Round 25 (docs/performance-history.md): what finding contacts on the host costs (--collisions
# merge, docs/collisions.md), with radii so small that no body touches. Run on the device after
# tools/device_test.sh stage:
#   bash docs/experiments/h200_round25_collisions.sh BUILD/nbody OUT_DIR
# simulate's own timing line ("K steps in S s"), without and with --collisions, twice in
# alternating order: the fragment and compute engines at 16384 Plummer bodies, the tree at 1M.
set -uo pipefail
nbody=${1:?nbody binary}
out=${2:?output folder}
mkdir -p "$out"
timed() {  # NAME OPTIONS...
  local name=$1
  shift
  "$nbody" simulate --scene plummer --method leapfrog -o "$out/$name.nbody" "$@" >"$out/$name.txt" 2>&1
  echo "== $name: $(grep -m1 -E 'steps in' "$out/$name.txt")"
  rm -f "$out/$name.nbody"
}
for round in 1 2; do
  for engine in fragment compute; do
    timed "$engine-16384-off-$round" --engine "$engine" --bodies 16384 --steps 400
    timed "$engine-16384-merge-$round" --engine "$engine" --bodies 16384 --steps 400 \
      --collisions merge --radius 1e-9
  done
  timed "tree-1048576-off-$round" --engine tree --bodies 1048576 --steps 40
  timed "tree-1048576-merge-$round" --engine tree --bodies 1048576 --steps 40 \
    --collisions merge --radius 1e-9
done
