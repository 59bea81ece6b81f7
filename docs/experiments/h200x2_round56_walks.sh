#!/usr/bin/env bash
# Round 56 on nvidia-h200-x2, after h200x2_next.sh showed rank 0's walk at 72.9 ms and rank 1's at
# 34.2 (decomposed, 16.8M): the phases of every evaluation of 6 Euler steps, twice (does the slow
# walk stay with rank 0, or move: the ring each rank tunes at its first evaluation, one timed trial
# a ring), then the same under the geometric opening (no coarse walk, one LET round).
#   bash docs/experiments/h200x2_round56_walks.sh BUILD
set -uo pipefail
build=$(realpath "${1:?build folder}")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
phases() {  # ARGS...: each evaluation's walk, coarse walk and close on each rank
  NBODY_DECOMPOSED_TIMES=1 timeout 150 "$build/device-bin/mpiexec" --bind-to none \
    -x __EGL_VENDOR_LIBRARY_FILENAMES -x NBODY_DECOMPOSED_TIMES -n 2 "$build/nbody" simulate \
    --engine tree --set distribute=decompose --bodies 16777216 -q -o /tmp/phases.nbody "$@" 2>&1 |
    grep -E 'decomposed tree|rror' | grep -oE 'rank [0-9]|(coarse-walk|walk|close) [0-9.]+' |
    paste -sd' ' | sed 's/ rank 0/\nrank 0/g'
}
for run in 1 2; do
  echo "== run $run: 6 steps, the defaults"
  phases --steps 6
done
echo "== geometric opening, theta 0.43: 4 steps"
phases --steps 4 --set opening=geometric --set theta=0.43
