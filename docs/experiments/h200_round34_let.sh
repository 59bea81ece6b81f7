#!/usr/bin/env bash
# Round 34 (docs/performance-history.md): the decomposed tree's local essential trees on the H200,
# ranks sharing its one GPU: each walker's accelerations against one process's, bit for bit (the
# probe's `let` mode), and each rank's LET size for both rounds. Run on the device after
# tools/device_test.sh stage with the Xvfb bundle carried (it installs Open MPI):
#   bash docs/experiments/h200_round34_let.sh BUILD
set -uo pipefail
build=${1:?build folder}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
probe() {  # RANKS STATE N [SETTINGS]
  local ranks=$1 start=$SECONDS
  shift
  echo "== $ranks ranks: $*"
  timeout 240 "$build/device-bin/mpiexec" -n "$ranks" --oversubscribe \
    "$build/tests/nbody_decomposed_probe" let "$@" 2>&1 | grep -E 'LET|differ|ok on|probe|rror'
  echo "   ($((SECONDS - start)) s)"
}
probe 2 plummer 1048576
probe 4 plummer 1048576
probe 4 uniform 1048576
probe 3 dense-core 100000
probe 4 plummer 1048576 opening=geometric,theta=0.43
probe 4 plummer 16777216
