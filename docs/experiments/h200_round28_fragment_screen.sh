#!/usr/bin/env bash
# Round 28 (docs/performance-history.md): the fragment engine's contact screen, variants of its
# texel loop read through NBODY_SHADER_DIR from h200_round28/ beside this script, with the one
# binary: D (the rows of blocks that may hold the fragment's bodies, a band of 4 rows, test each
# texel; all others run the plain block), D8 (a band of 8 rows), F (D without the massless select:
# wrong, it measures the select), G (D with neither min nor select: the loop's shape alone).
# Timed by `nbody bench` (medians of 5 repetitions of about a second). Run on the device after
# tools/device_test.sh stage:
#   bash docs/experiments/h200_round28_fragment_screen.sh BUILD/nbody OUT_DIR
set -uo pipefail
nbody=${1:?nbody binary}
out=${2:?output folder}
variants=$(cd "$(dirname "$0")" && pwd)/h200_round28
mkdir -p "$out"
timed() {  # NAME VARIANT OPTIONS...: VARIANT "-" for the built-in shaders
  local name=$1 variant=$2
  shift 2
  local folder=""
  [ "$variant" = "-" ] || folder=$variants/$variant
  NBODY_SHADER_DIR=$folder "$nbody" bench --scene plummer --repetitions 5 --seconds 1 \
    --json "$out/$name.json" "$@" >"$out/$name.txt" 2>&1
  echo "== $name: $(grep -E '^(fragment|compute|tree) ' "$out/$name.txt" | tr -s ' ')"
}
merge=(--collisions merge --radius 1e-9)
for round in 1 2; do
  common=(--engine fragment --bodies 16384 --method leapfrog)
  timed "off-$round" - "${common[@]}"
  timed "c-$round" - "${common[@]}" "${merge[@]}"
  for variant in D D8 F G; do timed "$variant-$round" "$variant" "${common[@]}" "${merge[@]}"; done
  common+=(--unroll 4x4)
  timed "off-4x4-$round" - "${common[@]}"
  timed "D-4x4-$round" D "${common[@]}" "${merge[@]}"
done
