#!/usr/bin/env bash
# Round 47 on nvidia-h200 (one GPU; the ranks share it): the one-GPU tree figures at HEAD (the
# decomposed tree now counts its lists after every evaluation), then bench under 2 ranks at 16.8M,
# replicated and decomposed: the JSON's interactions_per_step of both (the same lists: equal) and
# the decomposed ranks' phases (NBODY_DECOMPOSED_TIMES: `close` is the new sum of the misses and
# the lists' interactions). Run after tools/device_test.sh stage, within one call of 600 s:
#   bash docs/experiments/h200_round47_interactions.sh BUILD OUT
set -uo pipefail
build=$(realpath "${1:?build folder}") out=$(realpath "${2:?output folder}")
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export NBODY_DECOMPOSED_TIMES=1  # read by the decomposed ranks only
for n in 1048576 16777216; do
  echo "== bench: one process, tree, $n bodies"
  timeout 90 "$build/nbody" bench --engine tree --scene plummer --bodies $n \
    --json "$out/one_$n.json" 2>&1 | grep -E '^tree' | cut -c1-220
done
for distribute in replicate decompose; do
  echo "== bench: 2 ranks sharing the GPU, tree, 16777216 bodies, distribute=$distribute"
  timeout 150 "$build/device-bin/mpiexec" --oversubscribe -x __EGL_VENDOR_LIBRARY_FILENAMES \
    -x NBODY_DECOMPOSED_TIMES -n 2 "$build/nbody" bench --engine tree --scene plummer \
    --bodies 16777216 --repetitions 3 --set distribute=$distribute \
    --json "$out/two_$distribute.json" 2>&1 | grep -E '^tree|^nbody: rank' | cut -c1-400 | tail -8
done
python3 - "$out" <<'EOF'
import json, sys, glob, os
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    r = json.load(open(path))["results"][0]
    print(os.path.basename(path), "steps/s", r["steps_per_second"], "interactions/step",
          r["interactions_per_step"], "GFLOPS", r["gflops"])
EOF
