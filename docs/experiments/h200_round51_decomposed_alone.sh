#!/usr/bin/env bash
# Round 51 on nvidia-h200 (one GPU, one process): what the decomposed tree's machinery costs where
# there is nothing to exchange. bench of the tree at 1M and 16.8M Plummer, Euler, the defaults,
# replicated (one GPU's tree) and `distribute=decompose` in one process (K = 1: both sorts, the
# cut, the migration's tables, the slot hash, the frontier, empty LET rounds, the walk through
# the slot map); then the decomposed one's phases (NBODY_DECOMPOSED_TIMES: each phase ends with
# glFinish). Run after tools/device_test.sh stage, within one call of 600 s:
#   bash docs/experiments/h200_round51_decomposed_alone.sh BUILD OUT
set -uo pipefail
build=$(realpath "${1:?build folder}") out=$(realpath "${2:?output folder}")
mkdir -p "$out"
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
for n in 1048576 16777216; do
  for distribute in replicate decompose; do
    echo "== bench: one process, tree, $n bodies, distribute=$distribute"
    timeout 120 "$build/nbody" bench --engine tree --scene plummer --bodies $n \
      --set distribute=$distribute --json "$out/one_${distribute}_$n.json" 2>&1 |
      grep -E '^tree' | cut -c1-220
  done
done
for n in 1048576 16777216; do
  echo "== phases: one process, tree, $n bodies, distribute=decompose"
  NBODY_DECOMPOSED_TIMES=1 timeout 120 "$build/nbody" bench --engine tree --scene plummer \
    --bodies $n --repetitions 1 --set distribute=decompose --json "$out/phases_$n.json" 2>&1 |
    grep -E '^nbody: rank' | cut -c1-600 | tail -3
done
python3 - "$out" <<'EOF2'
import json, sys, glob, os
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    r = json.load(open(path))["results"][0]
    print(os.path.basename(path), "steps/s", r["steps_per_second"], "interactions/step",
          r.get("interactions_per_step"), "split", r.get("time_split_ms"))
EOF2
