#!/usr/bin/env bash
# For a lease of nvidia-h200-x2 or -x4 (a GPU a rank; last run in round 56, on x2): the figures
# the issue's strong-scaling targets need, at HEAD. One process, then K ranks (2, or 2 and 4),
# Plummer, Euler, the defaults: bench at 1M and 16.8M replicated and decomposed, and the phases of
# 3 decomposed steps at 16.8M (NBODY_DECOMPOSED_TIMES: each phase ends with glFinish). Round 53's
# prediction for two GPUs: decomposed 16.8M ~70-85 ms a step (round 38: 94.5). Run after
# tools/device_test.sh stage, within one call of 600 s:
#   bash docs/experiments/h200x2_next.sh BUILD OUT
set -uo pipefail
build=$(realpath "${1:?build folder}") out=$(realpath "${2:?output folder}")
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
gpus=$(nvidia-smi -L | wc -l)
mpi() {  # RANKS ARGS...
  timeout 150 "$build/device-bin/mpiexec" --bind-to none -x __EGL_VENDOR_LIBRARY_FILENAMES \
    ${NBODY_DECOMPOSED_TIMES:+-x NBODY_DECOMPOSED_TIMES} -n "$1" "$build/nbody" "${@:2}" 2>&1 |
    grep -v 'dlopen error'
}
for n in 1048576 16777216; do
  echo "== one process, tree, $n bodies"
  timeout 90 "$build/nbody" bench --engine tree --scene plummer --bodies $n \
    --json "$out/one_$n.json" 2>&1 | grep -E '^tree .*euler' | cut -c1-220
  for k in 2 4; do
    [ "$k" -gt "$gpus" ] && continue
    for distribute in replicate decompose; do
      echo "== $k ranks, $n bodies, distribute=$distribute"
      mpi $k bench --engine tree --scene plummer --bodies $n --repetitions 3 \
        --set distribute=$distribute --json "$out/${k}_${distribute}_$n.json" |
        grep -E '^tree .*euler|rank [0-9]|rror' | cut -c1-260
    done
  done
done
echo "== 2 ranks: phases, 16777216 bodies, 3 steps of euler"
NBODY_DECOMPOSED_TIMES=1 mpi 2 simulate --engine tree --set distribute=decompose \
  --bodies 16777216 --steps 3 -q -o /tmp/phases.nbody | grep -E 'decomposed tree|rror' | tail -2
python3 - "$out" <<'EOF2'
import json, sys, glob, os
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    r = json.load(open(path))["results"][0]
    print(os.path.basename(path), "steps/s", r["steps_per_second"])
EOF2
