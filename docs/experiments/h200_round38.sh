#!/usr/bin/env bash
# Round 38 (docs/performance-history.md) on one H200: one GPU's tree as before, then the decomposed
# tree with 2 ranks sharing the GPU: bench's per-rank state textures at 16.8M (JSON), and 200M
# bodies, one timed step, with the GPU's memory in use sampled every second.
# Run on the device after tools/device_test.sh stage and run (MPI comes with .devtest-xvfb):
#   bash docs/experiments/h200_round38.sh BUILD OUT
set -uo pipefail
build=${1:?build folder} out=${2:?output folder}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
quiet() { grep -v 'dlopen error'; }
for bodies in 1048576 16777216; do
  echo "== one GPU: bench tree euler plummer, $bodies bodies"
  timeout 120 "$build/nbody" bench --engine tree --method euler --scene plummer --bodies "$bodies" \
    2>&1 | quiet | grep -E '^tree .*euler|rror'
done
mpi() { timeout "$1" "$build/device-bin/mpiexec" --oversubscribe -x __EGL_VENDOR_LIBRARY_FILENAMES \
  -n 2 "$build/nbody" "${@:2}" 2>&1 | quiet; }
echo "== 2 ranks sharing the GPU: bench decompose, 16777216 bodies (JSON per rank)"
mpi 150 bench --engine tree --method euler --scene plummer --bodies 16777216 --repetitions 3 \
  --set distribute=decompose --json "$out/decompose_16m.json" | grep -E '^tree .*euler|rank [0-9]|rror'
echo "== 2 ranks sharing the GPU: 200M bodies decomposed, one timed step"
nvidia-smi --query-gpu=memory.used --format=csv,noheader -l 1 > "$out/memory_200m.txt" &
sampler=$!
/usr/bin/time -f "wall %e s, max resident %M KB" "$build/device-bin/mpiexec" --oversubscribe \
  -x __EGL_VENDOR_LIBRARY_FILENAMES -n 2 timeout 420 "$build/nbody" bench --engine tree \
  --method euler --scene plummer --bodies 200000000 --steps 1 --repetitions 1 \
  --set distribute=decompose --json "$out/decompose_200m.json" 2>&1 | quiet |
  grep -E '^tree .*euler|rank [0-9]|rror|wall|force error'
kill "$sampler"
echo "most GPU memory in use: $(sort -n "$out/memory_200m.txt" | tail -1) of $(nvidia-smi \
  --query-gpu=memory.total --format=csv,noheader)"
