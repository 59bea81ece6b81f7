#!/usr/bin/env bash
# Round 34 (docs/performance-history.md): the LET rounds changed the walk kernel two ways that one
# GPU also compiles: the |a| estimates indexed by slot less uBodiesBelow (0 on one GPU) and
# rangeSlot (the identity there). Neither may change a bit or cost time. The same binary with the
# walk and slot kernels of before (through NBODY_SHADER_DIR) and of now: same_bits.sh over every
# case, then round 33's bench, alternating. Run on the device after tools/device_test.sh stage:
#   git show e735603:shaders/tree_walk.comp > OLD/tree_walk.comp   (and tree_slots.glsl)
#   bash docs/experiments/h200_round34_one_gpu.sh BUILD OLD
set -uo pipefail
build=${1:?build folder} old=${2:?folder of the kernels of before}
here=$(dirname "$0")
before=$(mktemp -d)/nbody-before
printf '#!/bin/sh\nNBODY_SHADER_DIR=%s exec %s "$@"\n' "$old" "$build/nbody" > "$before"
chmod +x "$before"
echo "== same bits: the kernels of before, then of now"
bash "$here/same_bits.sh" "$before" "$build/nbody" "$(mktemp -d)"
echo "== speed"
bash "$here/h200_round33_slots.sh" "$build/nbody" "$old"
