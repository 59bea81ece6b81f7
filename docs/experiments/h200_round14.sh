#!/usr/bin/env bash
# Round 14 on the H200 (the redesign, the distributed engine), in one device call after
# `device_test.sh stage`:
#   1. the redesign changes no speed: main's binary before it (A) and after (B), interleaved
#      A B A B: fragment and compute at N = 16384 (Euler), the tree at 1M and 16.8M Plummer;
#   2. the redesign changes no bit: docs/experiments/same_bits.sh A B (1M and 16.8M included);
#   3. the distributed engine's exchange with ranks sharing the one GPU: B under mpiexec with 1
#      and 2 ranks, the tree at 1M and 16.8M Plummer and the compute engine at 1M, its per-rank
#      split (force, download, MPI, upload, rest) from bench's JSON; and B without mpiexec for the
#      single-process floors (fragment >= 220, compute >= 6700 at 16384, tree 1M Plummer >= 110).
#   bash docs/experiments/h200_round14.sh A/nbody B/nbody MPIEXEC OUT
set -uo pipefail
a=$1 b=$2 mpiexec=$3 out=$4
mkdir -p "$out"

bench() {  # LABEL COMMAND... (the command ends with nbody's `bench` and its options)
  local label=$1
  shift
  echo "== $label: $*"
  "$@" --json "$out/$label.json" 2>&1 | grep -vE '^\s+\[' | tail -12
}

for round in 1 2; do
  for side in A B; do
    binary=$a
    [ "$side" = B ] && binary=$b
    bench "direct-$side$round" "$binary" bench --engine fragment,compute --method euler --bodies 16384 --repetitions 7
    bench "tree1m-$side$round" "$binary" bench --engine tree --scene plummer --bodies 1048576 --repetitions 7
  done
done
for side in A B; do
  binary=$a
  [ "$side" = B ] && binary=$b
  bench "tree16m-$side" "$binary" bench --engine tree --scene plummer --bodies 16777216 --repetitions 5
done

echo "== same bits, A against B"
bash "$(dirname "$0")/same_bits.sh" "$a" "$b" "$out/bits" 2>&1 | tail -25

for ranks in 1 2; do
  bench "ranks$ranks-tree1m" "$mpiexec" -n "$ranks" "$b" bench --engine tree --scene plummer --bodies 1048576 --repetitions 5
  bench "ranks$ranks-tree16m" "$mpiexec" -n "$ranks" "$b" bench --engine tree --scene plummer --bodies 16777216 \
    --repetitions 3
  bench "ranks$ranks-compute1m" "$mpiexec" -n "$ranks" "$b" bench --engine compute --bodies 1048576 --repetitions 3
done
