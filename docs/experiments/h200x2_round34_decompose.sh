#!/usr/bin/env bash
# Round 34 (docs/performance-history.md): the decomposed tree (--set distribute=decompose) against
# the replicated one on two H200s of one host, tree Plummer with bench's defaults, and its bits
# across two GPUs: `simulate` under 2 ranks against one process, and the probe's `let` mode.
# Run on the device (nvidia-h200-x2) after tools/device_test.sh stage with the Xvfb bundle carried
# (it installs Open MPI):
#   bash docs/experiments/h200x2_round34_decompose.sh BUILD
set -uo pipefail
build=${1:?build folder}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpi="$build/device-bin/mpiexec --oversubscribe"
scratch=$(mktemp -d)
quiet() { grep -v 'dlopen error\|Perhaps a missing'; }
bench() {  # RANKS DISTRIBUTE BODIES REPETITIONS
  echo "== $1 ranks, distribute=$2, $3 bodies"
  local run=("$build/nbody" bench --engine tree --method euler --scene plummer --bodies "$3"
             --repetitions "$4" --set "distribute=$2")
  if [ "$1" = 1 ]; then "${run[@]}" 2>&1; else $mpi -n "$1" "${run[@]}" 2>&1; fi |
    quiet | grep -E '^tree|rank [0-9]|rror'
}
echo "== bits: simulate, 1M Plummer, 2 steps of rk4, one process against 2 ranks decomposed"
sim=(simulate --engine tree --method rk4 --bodies 1048576 --steps 2 -q)
"$build/nbody" "${sim[@]}" -o "$scratch/one.nbody"
$mpi -n 2 "$build/nbody" "${sim[@]}" --set distribute=decompose -o "$scratch/two.nbody" 2>&1 | quiet
cmp "$scratch/one.nbody" "$scratch/two.nbody" && echo "same bytes"
$mpi -n 2 "$build/tests/nbody_decomposed_probe" let plummer 4194304 2>&1 | quiet |
  grep -E 'LET|ok on|differ|rror'
for bodies in 1048576 16777216; do
  repetitions=5
  [ "$bodies" = 16777216 ] && repetitions=3
  bench 1 replicate "$bodies" "$repetitions"
  bench 2 replicate "$bodies" "$repetitions"
  bench 2 decompose "$bodies" "$repetitions"
done
