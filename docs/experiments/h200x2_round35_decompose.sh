#!/usr/bin/env bash
# Round 35 (docs/performance-history.md): the decomposed tree with the LET's lists made on the GPU,
# walker bodies fetched by ID, the slot hash filled on the GPU and the walk's ring tuned. On
# nvidia-h200-x2 (a GPU a rank): each phase's time (NBODY_DECOMPOSED_TIMES, each phase ends with
# glFinish), then bench's steps/s, decomposed and replicated, at 1M and 16.8M, Plummer.
# Run on the device after tools/device_test.sh stage with the Xvfb bundle carried:
#   bash docs/experiments/h200x2_round35_decompose.sh BUILD [PHASES_ONLY]
set -uo pipefail
build=${1:?build folder}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
ranks=2
mpi() { timeout 200 "$build/device-bin/mpiexec" --oversubscribe \
  ${NBODY_DECOMPOSED_TIMES:+-x NBODY_DECOMPOSED_TIMES} -x __EGL_VENDOR_LIBRARY_FILENAMES \
  -n $ranks "$build/nbody" "$@" 2>&1 | grep -v 'dlopen error'; }
export NBODY_DECOMPOSED_TIMES=1
for run in 2:1048576 2:16777216; do
  ranks=${run%%:*} bodies=${run#*:}
  echo "== phases: $ranks ranks, $bodies bodies, 3 steps of euler"
  mpi simulate --engine tree --set distribute=decompose --bodies "$bodies" --steps 3 -q \
    -o /tmp/phases.nbody | grep -E 'decomposed tree|rror' | sed 's/decomposed tree, ms: //'
done
ranks=2
[ $# -gt 1 ] && exit 0
unset NBODY_DECOMPOSED_TIMES
for bodies in 1048576 16777216; do
  for distribute in decompose; do  # replicate: measured before this round's changes, which it skips
    echo "== bench: 2 ranks, $bodies bodies, distribute=$distribute"
    mpi bench --engine tree --method euler --scene plummer --bodies "$bodies" --repetitions 3 \
      --set distribute=$distribute | grep -E '^tree|steps/s|rank [0-9]|rror'
  done
done
