#!/usr/bin/env bash
# Round 59 on nvidia-h200-x2 (a GPU a rank): the capacity target's step, 950M bodies decomposed
# over the two GPUs: `bench` (Plummer, Euler, the defaults; 1 timed step, 1 repetition, after its
# 2 + 1 warm-up steps), its force error sampled (2^40 / N judged bodies), nothing gathered. Each
# GPU's memory in use sampled every 0.5 s, each rank's phases on stderr (NBODY_DECOMPOSED_TIMES),
# the ranks' resident memory from /usr/bin/time. Run after tools/device_test.sh stage, within one
# call of 600 s:
#   [LIMIT_S=580] [RANKS=2] bash docs/experiments/h200x2_round59_capacity.sh BUILD OUT [BODIES]
# (RANKS=4: two ranks a GPU, each holding a quarter.)
set -uo pipefail
build=$(realpath "${1:?build folder}") out=$(realpath "${2:?output folder}")
bodies=${3:-950000000}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NBODY_DECOMPOSED_TIMES=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 500 \
  >"$out/memory_${RANKS:-2}_$bodies.txt" &
sampler=$!
began=$SECONDS
timeout "${LIMIT_S:-580}" "$build/device-bin/mpiexec" --bind-to none \
  -x __EGL_VENDOR_LIBRARY_FILENAMES -x NBODY_DECOMPOSED_TIMES -n "${RANKS:-2}" \
  /usr/bin/time -f "rank wall %e s, most resident %M KB" "$build/nbody" bench --engine tree \
  --method euler --scene plummer --bodies "$bodies" --steps 1 --repetitions 1 \
  --set distribute=decompose --json "$out/bench_${RANKS:-2}_$bodies.json" 2>&1 |
  grep -v -e 'dlopen error' -e pmix | while IFS= read -r line; do
    printf '%5d s  %s\n' $((SECONDS - began)) "$line"
  done >"$out/bench_${RANKS:-2}_$bodies.txt"
status=${PIPESTATUS[0]}
kill "$sampler" 2>/dev/null
grep -E '^ *[0-9]+ s  (tree|rank [0-9]|.*rror|.*refus|.*wall)' "$out/bench_${RANKS:-2}_$bodies.txt" | cut -c1-300
echo "$bodies: exit $status, $((SECONDS - began)) s"
for gpu in 0 1; do
  echo "GPU $gpu: most memory in use $(grep "^$gpu," "$out/memory_${RANKS:-2}_$bodies.txt" | cut -d, -f2 |
    sort -n | tail -1) MiB of $(nvidia-smi -i $gpu --query-gpu=memory.total --format=csv,noheader)"
done
