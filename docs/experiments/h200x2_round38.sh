#!/usr/bin/env bash
# Round 38 (docs/performance-history.md) on nvidia-h200-x2 (a GPU a rank): round 36's phases and
# benches (its script: round 36's step E was never measured on two GPUs), then 200M bodies
# decomposed over the two GPUs, one timed step, each GPU's memory in use sampled every second.
# Run on the device after tools/device_test.sh stage with the Xvfb bundle carried:
#   bash docs/experiments/h200x2_round38.sh BUILD OUT
set -uo pipefail
build=${1:?build folder} out=${2:?output folder}
here=$(dirname "$0")
bash "$here/h200x2_round36_state.sh" "$build"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
echo "== 2 ranks, a GPU each: 200M bodies decomposed, one timed step"
nvidia-smi --query-gpu=index,memory.used --format=csv,noheader -l 1 > "$out/memory_200m.txt" &
sampler=$!
/usr/bin/time -f "wall %e s, max resident %M KB" "$build/device-bin/mpiexec" --oversubscribe \
  -x __EGL_VENDOR_LIBRARY_FILENAMES -n 2 timeout 400 "$build/nbody" bench --engine tree \
  --method euler --scene plummer --bodies 200000000 --steps 1 --repetitions 1 \
  --set distribute=decompose --json "$out/decompose_200m.json" 2>&1 | grep -v 'dlopen error' |
  grep -E '^tree|rank [0-9]|rror|wall'
kill "$sampler"
for gpu in 0 1; do
  echo "GPU $gpu: most memory in use $(grep "^$gpu," "$out/memory_200m.txt" | cut -d, -f2 |
    sort -n | tail -1) of$(nvidia-smi -i $gpu --query-gpu=memory.total --format=csv,noheader)"
done
