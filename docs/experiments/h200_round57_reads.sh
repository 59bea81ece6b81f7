#!/usr/bin/env bash
# Round 57 on nvidia-h200 (one GPU; 2 ranks share it): the tree's small reads of its arrays through
# a parcel. The phases of 3 decomposed Euler steps at 16.8M under 2 ranks (`ends`: two keys read
# and an allgather), then bench: 2 ranks decomposed at 16.8M, one process at 1M and 16.8M.
#   bash docs/experiments/h200_round57_reads.sh BUILD OUT
set -uo pipefail
build=$(realpath "${1:?build folder}") out=$(realpath "${2:?output folder}")
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
mpi() {  # ARGS...: nbody under 2 ranks sharing the GPU
  timeout 150 "$build/device-bin/mpiexec" --oversubscribe -x __EGL_VENDOR_LIBRARY_FILENAMES \
    ${NBODY_DECOMPOSED_TIMES:+-x NBODY_DECOMPOSED_TIMES} -n 2 "$build/nbody" "$@" 2>&1 |
    grep -v 'dlopen error'
}
echo "== phases, 2 ranks, 16777216 bodies, 3 steps of euler"
NBODY_DECOMPOSED_TIMES=1 mpi simulate --engine tree --set distribute=decompose --bodies 16777216 \
  --steps 3 -q -o /tmp/phases.nbody | grep -E 'decomposed tree|rror' | tail -2 |
  grep -oE 'rank [0-9]|(walker-sort|ends|straddling|topology|link|walk|close) [0-9.]+' | paste -sd' '
echo "== bench, 2 ranks, 16777216 bodies, distribute=decompose"
mpi bench --engine tree --method euler --scene plummer --bodies 16777216 --repetitions 3 \
  --set distribute=decompose --json "$out/two_16777216.json" |
  grep -E '^tree .*euler  |its last|rror' | cut -c1-220
for n in 1048576 16777216; do
  echo "== bench, one process, $n bodies"
  timeout 90 "$build/nbody" bench --engine tree --scene plummer --bodies $n \
    --json "$out/one_$n.json" 2>&1 | grep -E '^tree .*euler  ' | cut -c1-220
done
