#!/usr/bin/env bash
# The distributed engine on a machine of several GPUs, after `device_test.sh stage` has unpacked
# the build and Open MPI (both bundles carried in the lease):
#   1. which GPU each rank took: nvidia-smi's list, and nbody's rank report under mpiexec -n K
#      (EGL device k of G, CUDA device k: every rank of a node on a GPU of its own);
#   2. the same bits: simulate's final state under K = 1, 2 (4) ranks, one rank a GPU, for every
#      GPU engine, hashed and compared with K = 1;
#   3. bench under K = 1, 2 (4): the tree at 16.8M Plummer, the compute engine at 1M; each run's
#      JSON (per rank: force, download, MPI, upload, rest) in OUT; the largest K once more with
#      the shared window refused (its folder made unwritable), i.e. through MPI_Allgatherv.
# K goes up to the number of GPUs nvidia-smi lists (4 at most). Each step has its own time limit,
# so that a slow one leaves the others their time.
#   bash docs/experiments/multi_gpu.sh NBODY MPIEXEC OUT
set -uo pipefail
nbody=$1 mpiexec=$2 out=$3
mkdir -p "$out"
gpus=$(nvidia-smi -L | wc -l)
ranks=(1 2)
[ "$gpus" -ge 4 ] && ranks=(1 4 2)
echo "== GPUs ($gpus)"
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv,noheader

launch() {  # K SECONDS ARGUMENTS...: nbody under mpiexec with K ranks (K = 1: mpiexec -n 1)
  local k=$1 seconds=$2
  shift 2
  timeout "$seconds" "$mpiexec" -n "$k" --bind-to none "$nbody" "$@"
}

echo "== /dev/shm, where Open MPI places the shared window"
df -h /dev/shm | tail -1
if [ "$(df --output=avail -B1M /dev/shm | tail -1)" -lt 2048 ]; then
  export OMPI_MCA_osc_sm_backing_directory=/tmp
  echo "under 2 GiB free: the window goes to /tmp"
fi

echo "== the rank report"
launch "${ranks[1]}" 60 simulate --engine compute --bodies 4096 --steps 1 -o "$out/report.nbody" 2>&1 | grep 'rank'

echo "== bench (the largest K first after K = 1: what matters most comes back first)"
bench_case() {  # LABEL SECONDS ARGUMENTS...
  local label=$1 seconds=$2 k
  shift 2
  for k in "${ranks[@]}"; do
    echo "-- $label K=$k"
    launch "$k" "$seconds" bench "$@" --json "$out/$label-$k.json" 2>&1 | grep -E '^(tree|compute) |^  rank'
  done
}
bench_case tree16m 60 --engine tree --scene plummer --bodies 16777216 --repetitions 3 --seconds 1
echo "-- tree16m K=${ranks[1]} through MPI_Allgatherv"
OMPI_MCA_osc_sm_backing_directory=/nonexistent launch "${ranks[1]}" 60 bench --engine tree --scene plummer \
  --bodies 16777216 --repetitions 3 --seconds 1 --json "$out/tree16m-${ranks[1]}-allgatherv.json" 2>&1 |
  grep -E '^tree |^  rank|^nbody: the ranks'
echo "== the same bits (N = 10000, 3 steps; K against K = 1)"
bits_case() {  # NAME ARGUMENTS... (N = 10000 and 3 steps unless BITS_N and BITS_STEPS say otherwise)
  local name=$1 k reference hash
  shift
  for k in "${ranks[@]}"; do
    launch "$k" 90 simulate -q --bodies "${BITS_N:-10000}" --steps "${BITS_STEPS:-3}" "$@" -o "$out/$name-$k.nbody" \
      >"$out/$name-$k.log" 2>&1 ||
      { echo "$name K=$k: failed: $(tail -2 "$out/$name-$k.log" | tr '\n' ' ')"; continue; }
    hash=$(sha256sum <"$out/$name-$k.nbody" | cut -c1-16)
    [ "$k" = 1 ] && reference=$hash
    echo "$name K=$k: $hash $([ "$hash" = "${reference:-}" ] && echo same || echo DIFFERENT)"
  done
}
bits_case tree-euler --engine tree --method euler
bits_case tree-rk4 --engine tree --method rk4
bits_case compute-rk4 --engine compute --method rk4
bits_case fragment-leapfrog --engine fragment --method leapfrog
# 16.8M, 2 steps: the tree's exchange streamed in several parts of the walk (the first evaluation
# tunes the ring and walks without parts; a part has at least 64 groups a multiprocessor, so at
# 10000 bodies there is one)
BITS_N=16777216 BITS_STEPS=2 bits_case tree-16m-euler --engine tree --method euler --scene plummer
rm -f "$out"/tree-16m-*.nbody

bench_case compute1m 45 --engine compute --bodies 1048576 --repetitions 3 --steps 2
bench_case tree1m 45 --engine tree --scene plummer --bodies 1048576 --repetitions 3 --seconds 1
echo "== done"
