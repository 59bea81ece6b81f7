#!/usr/bin/env bash
# Round 33 (docs/performance-history.md): what the slot mapping (shaders/tree_slots.glsl) costs
# one GPU's walk. The same binary runs the walk and moments kernels of before the mapping (through
# NBODY_SHADER_DIR) and of now, alternating, on Plummer 1M and 16.8M with bench's defaults.
# Run on the device after tools/device_test.sh stage, with the kernels of before in a folder:
#   git show 3cedf67:shaders/tree_walk.comp > OLD/tree_walk.comp   (and tree_moments.comp)
#   bash docs/experiments/h200_round33_slots.sh BUILD/nbody OLD
set -uo pipefail
nbody=${1:?nbody binary}
old=${2:?folder of the kernels of before}

bench() {  # BODIES REPETITIONS: the bench's rows
  "$nbody" bench --engine tree --method euler --scene plummer --bodies "$1" --repetitions "$2" \
    2>&1 | grep -E "^tree"
}

for round in 1 2; do
  for bodies in 1048576 16777216; do
    repetitions=5
    [ "$bodies" = 16777216 ] && repetitions=3
    echo "== round $round, $bodies bodies, kernels of before"
    NBODY_SHADER_DIR=$old bench "$bodies" "$repetitions"
    echo "== round $round, $bodies bodies, kernels with slots"
    bench "$bodies" "$repetitions"
  done
done
