#!/usr/bin/env bash
# Round 58 on nvidia-h200 (one GPU; 2 ranks share it): what a decomposed rank holds at once, now
# that a large walker frees its migration's buffers after it and the build's and moments' arrays
# between their uses. `simulate`, one Euler step, Plummer, distribute=decompose: at 300M (round 43:
# 104 GB of the GPU at most) and at 475M, a GPU's share of 950M on two GPUs, written in parts.
# The GPU's memory in use sampled every 0.5 s; each rank's phases on stderr (NBODY_DECOMPOSED_TIMES).
# The fullest moment comes before the parts are written: LIMIT_S (330 s a run) may end a run
# while it writes them. Run after tools/device_test.sh stage, within one call of 600 s:
#   [LIMIT_S=330] bash docs/experiments/h200_round58_memory.sh BUILD OUT [BODIES...]
set -uo pipefail
build=$(realpath "${1:?build folder}") out=$(realpath "${2:?output folder}")
shift 2
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NBODY_DECOMPOSED_TIMES=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
scratch=${SCRATCH:-/tmp/nbody-round58}
for bodies in "${@:-300000000 475000000}"; do
  mkdir -p "$scratch"
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 500 >"$out/memory_$bodies.txt" &
  sampler=$!
  began=$SECONDS
  timeout "${LIMIT_S:-330}" "$build/device-bin/mpiexec" --oversubscribe \
    -x __EGL_VENDOR_LIBRARY_FILENAMES -x NBODY_DECOMPOSED_TIMES -n 2 "$build/nbody" simulate \
    --engine tree --method euler --scene plummer --bodies "$bodies" --steps 1 \
    --set distribute=decompose --snapshot-files ranks -o "$scratch/parts.hdf5" 2>&1 |
    grep -v -e 'dlopen error' -e pmix >"$out/simulate_$bodies.txt"
  status=${PIPESTATUS[0]}
  kill "$sampler" 2>/dev/null
  grep -E '^simulate|error|refus' "$out/simulate_$bodies.txt" | cut -c1-200
  ls -l "$scratch" | awk 'NR > 1 { print $5, $9 }'
  echo "$bodies: exit $status, $((SECONDS - began)) s, most GPU memory $(sort -n "$out/memory_$bodies.txt" | tail -1) MiB"
  rm -rf "$scratch"
done
