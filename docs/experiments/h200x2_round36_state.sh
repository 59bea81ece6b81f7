#!/usr/bin/env bash
# Round 36 (docs/performance-history.md): the decomposed tree with its state decomposed (each rank
# holds and advances its walker's bodies, crossing bodies carry their texels, no acceleration is
# shared). On nvidia-h200-x2 (a GPU a rank): round 35's phases and benches (its script), then bench
# at 16.8M with RK4 (13 textures a body move) and with sync readback (the state gathered every
# step). Run on the device after tools/device_test.sh stage with the Xvfb bundle carried:
#   bash docs/experiments/h200x2_round36_state.sh BUILD
set -uo pipefail
build=${1:?build folder}
here=$(dirname "$0")
bash "$here/h200x2_round35_decompose.sh" "$build"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
for extra in "--method rk4" "--method euler --readback sync"; do
  echo "== bench: 2 ranks, 16777216 bodies, distribute=decompose, $extra"
  timeout 200 "$build/device-bin/mpiexec" --oversubscribe -x __EGL_VENDOR_LIBRARY_FILENAMES -n 2 \
    "$build/nbody" bench --engine tree $extra --scene plummer --bodies 16777216 --repetitions 3 \
    --set distribute=decompose 2>&1 | grep -E '^tree|steps/s|rank [0-9]|rror' | grep -v 'dlopen'
done
