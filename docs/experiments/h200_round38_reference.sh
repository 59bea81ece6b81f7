#!/usr/bin/env bash
# Round 38 (docs/performance-history.md) on one H200: the force error's double-precision reference,
# whose sums are marked `precise` since this round (shaders/force_reference.comp): `accuracy` at
# 4.2M bodies in one process with the shaders as built and with `precise` taken out
# (NBODY_SHADER_DIR), the probe's bits of the reference summed in pieces without it, and the
# decomposed `accuracy` on 2 ranks sharing the GPU (each rank sums half the judged bodies).
# Run on the device after tools/device_test.sh stage with the Xvfb bundle carried:
#   bash docs/experiments/h200_round38_reference.sh BUILD OUT
set -uo pipefail
build=${1:?build folder} out=${2:?output folder}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
plain=$out/shaders-without-precise
cp -r shaders "$plain" && sed -i 's/  precise dvec3 sum/  dvec3 sum/' "$plain/force_reference.comp"
grep -c precise "$plain/force_reference.comp"
run=(accuracy --engine tree --scene plummer --bodies 4194304 -q)
for variant in built plain; do
  dir=$([ $variant = plain ] && echo "$plain" || echo "")
  echo "== one process, accuracy at 4194304 bodies, shaders $variant"
  NBODY_SHADER_DIR=$dir /usr/bin/time -f "wall %e s" timeout 200 "$build/nbody" "${run[@]}" \
    --json "$out/accuracy_$variant.json" 2>&1 | grep -E 'wall|rror|force error'
done
cmp "$out/accuracy_built.json" "$out/accuracy_plain.json" && echo "the same report, bit for bit"
mpi() { "$build/device-bin/mpiexec" --oversubscribe -x __EGL_VENDOR_LIBRARY_FILENAMES \
  -x NBODY_SHADER_DIR -n 2 "$@" 2>&1 | grep -v 'dlopen error'; }
echo "== the probe's let mode (pieces against one texture), shaders plain"
NBODY_SHADER_DIR=$plain mpi timeout 100 "$build/tests/nbody_decomposed_probe" let plummer 3001 \
  piece-bytes=21000 | grep -E 'ok|differ|rror'
echo "== 2 ranks sharing the GPU, decomposed accuracy at 4194304 bodies, shaders built"
NBODY_SHADER_DIR= mpi /usr/bin/time -f "wall %e s" timeout 200 "$build/nbody" "${run[@]}" \
  --set distribute=decompose --json "$out/accuracy_decomposed.json" | grep -E 'wall|rror|force'
python3 -c "import json,sys; a=[json.load(open(sys.argv[i]))['force_error'] for i in (1,2)]; \
print('decomposed force error is one process\'s:', a[0]==a[1])" \
  "$out/accuracy_built.json" "$out/accuracy_decomposed.json"
