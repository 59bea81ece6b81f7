#!/usr/bin/env bash
# Round 34 (docs/performance-history.md): where the decomposed tree's time goes, phase by phase
# (NBODY_DECOMPOSED_TIMES: each phase ends with glFinish), Plummer, 2 ranks: on one H200 they
# share it (each glFinish then waits behind the other's work too), on nvidia-h200-x2 a GPU each;
# then bench's steps/s of the decomposed tree at 16.8M.
# Run on the device after tools/device_test.sh stage with the Xvfb bundle carried:
#   bash docs/experiments/h200_round34_phases.sh BUILD
set -uo pipefail
build=${1:?build folder}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export NBODY_DECOMPOSED_TIMES=1
for bodies in 1048576 16777216; do
  echo "== 2 ranks, $bodies bodies, 2 steps of euler"
  "$build/device-bin/mpiexec" --oversubscribe -x NBODY_DECOMPOSED_TIMES -n 2 "$build/nbody" \
    simulate --engine tree --set distribute=decompose --bodies "$bodies" --steps 2 -q \
    -o /tmp/phases.nbody 2>&1 | grep -E 'decomposed tree|rror'
done
unset NBODY_DECOMPOSED_TIMES
"$build/device-bin/mpiexec" --oversubscribe -n 2 "$build/nbody" bench --engine tree --method euler \
  --scene plummer --bodies 16777216 --repetitions 3 --set distribute=decompose 2>&1 |
  grep -E '^tree|rank [0-9]|rror'
