#!/usr/bin/env bash
# Round 32 (docs/performance-history.md): what a diagnostics row costs with exact sums. Each run is
# `simulate` twice, without diagnostics and with a row every step, and the difference in wall time
# over the rows is a row's cost (the direct engines' O(N^2) pair pass twice, exponents then digits;
# the tree's potential walk and its groups' sums read back).
# Run on the device after tools/device_test.sh stage:
#   [ROUNDS="1"] [QUICK=1] bash docs/experiments/h200_round32_diagnostics.sh BUILD/nbody OUT_DIR
set -uo pipefail
nbody=${1:?nbody binary}
out=${2:?output folder}
mkdir -p "$out"

seconds() {  # OUTPUT_NAME ARGS...: wall seconds of one simulate
  local name=$1 start end
  shift
  start=$(date +%s.%N)
  "$nbody" simulate -o "$out/$name.nbody" "$@" >"$out/$name.txt" 2>&1 || echo "failed: $name" >&2
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}

row_cost() {  # ENGINE BODIES STEPS
  local engine=$1 bodies=$2 steps=$3 common plain with
  common=(--engine "$engine" --bodies "$bodies" --steps "$steps" --method leapfrog)
  plain=$(seconds "$engine-$bodies-plain" "${common[@]}")
  with=$(seconds "$engine-$bodies-rows" "${common[@]}" --diagnostics "$out/$engine-$bodies.csv" \
    --diagnostics-every 1)
  echo "== $engine $bodies: $steps steps $plain s, with $((steps + 1)) rows $with s;" \
    "a row $(awk -v p="$plain" -v w="$with" -v n="$((steps + 1))" 'BEGIN { printf "%.2f", (w - p) * 1000 / n }') ms"
}

for round in ${ROUNDS:-1 2}; do
  echo "-- round $round"
  row_cost fragment 16384 50
  row_cost fragment 65536 10
  row_cost tree 1048576 20
  [ -n "${QUICK:-}" ] || row_cost tree 16777216 5  # QUICK=1: not the largest
done
