#!/usr/bin/env bash
# Round 28 (docs/performance-history.md): the fragment engine's contact screen, variants of its
# texel loop read through NBODY_SHADER_DIR, each assembled from the parts in h200_round28/ beside
# this script (variant_parts), with the one binary: D (the rows of blocks that may hold the
# fragment's bodies, a band of 4 rows, test each texel; all others run the plain block), D8 (a
# band of 8 rows), F (D without the massless select: wrong, it measures the select), G (D with
# neither min nor select: the loop's shape alone).
# Timed by `nbody bench` (medians of 5 repetitions of about a second). Run on the device after
# tools/device_test.sh stage:
#   bash docs/experiments/h200_round28_fragment_screen.sh BUILD/nbody OUT_DIR [VARIANT...]
# The second run named H (G without the atomic add of the flag: the side effect's cost), I (round
# 27's loop with neither min nor select), J (D8 with early fragment tests), K (G with a band of 16
# rows) and D16; the third M (K's loop with a max of m_j / r^3 a pair instead of the min of r^2,
# which drops the massless select, and the flag written to the acceleration's w instead of an
# atomic add), N (M with the atomic add), O (D16 with the flag in w) and P (M with a band of 8).
# These three runs timed unroll 4x4 alone, with D8 (LAYOUT_VARIANT=D8; its name in the output).
# The fourth, with round 27's binary: W (the committed loop: D8 with the texels tested in 32
# columns alone) and W0 (W without the massless select), LAYOUT_VARIANT=W for the other layouts.
# The last, with the committed loop built in (D8 with the tested texels in 32 columns): C27 (round
# 27's loop, for comparison in the same run), and the layouts unroll 4x4 and 8 bodies a fragment.
set -uo pipefail
nbody=${1:?nbody binary}
out=${2:?output folder}
parts=$(cd "$(dirname "$0")" && pwd)/h200_round28
mkdir -p "$out"
# Each variant's files, from the parts in h200_round28/ (FILE.PART.EXT stands in for FILE.EXT); D8
# and D16 are D with another band.
variant_parts() {
  case $1 in
    D | D8 | D16) echo texture_sum.D.glsl ;;
    F | G | H) echo "texture_sum.D.glsl gravity.$1.glsl" ;;
    I) echo gravity.G.glsl ;;
    J) echo "texture_sum.D.glsl force.J.frag" ;;
    K) echo "texture_sum.D.glsl gravity.G.glsl" ;;
    M | O) echo "texture_sum.D.glsl gravity.$1.glsl force.M.frag" ;;
    N) echo "texture_sum.D.glsl gravity.N.glsl" ;;
    P) echo "texture_sum.D.glsl gravity.M.glsl force.M.frag" ;;
    W | C27) echo "texture_sum.$1.glsl" ;;
    W0) echo "texture_sum.W.glsl gravity.F.glsl" ;;
    *) echo "no variant $1" >&2 && exit 1 ;;
  esac
}
variant_band() {  # the band of rows a variant tests each texel in, where it sets one
  case $1 in D8 | J | P) echo 8 ;; D16 | K | M | N | O) echo 16 ;; esac
}
variant_folder() {  # NAME: a folder for NBODY_SHADER_DIR
  local folder=$out/shaders-$1 part band
  mkdir -p "$folder"
  for part in $(variant_parts "$1"); do
    cp "$parts/$part" "$folder/$(echo "$part" | sed -E 's/\.[A-Z0-9]+\././')"
  done
  band=$(variant_band "$1")
  [ -z "$band" ] || sed -i "s/^#define OWN_BAND 4\$/#define OWN_BAND $band/" "$folder/texture_sum.glsl"
  echo "$folder"
}
timed() {  # NAME VARIANT OPTIONS...: VARIANT "-" for the built-in shaders
  local name=$1 variant=$2
  shift 2
  local folder=""
  [ "$variant" = "-" ] || folder=$(variant_folder "$variant")
  NBODY_SHADER_DIR=$folder "$nbody" bench --scene plummer --repetitions 5 --seconds 1 \
    --json "$out/$name.json" "$@" >"$out/$name.txt" 2>&1
  echo "== $name: $(grep -E '^(fragment|compute|tree) ' "$out/$name.txt" | tr -s ' ')"
}
merge=(--collisions merge --radius 1e-9)
variants_run=("${@:3}")
[ ${#variants_run[@]} -gt 0 ] || variants_run=(D D8 F G)
layout_variant=${LAYOUT_VARIANT:--}  # the other layouts' screen: the built-in shaders
# The last run (FINAL=1), with the committed loop built in and 8 bodies a fragment where a run
# screens: the default layouts without and with --collisions, the screened run at 4 bodies a
# fragment, C27 at the screened layout, and the same at 65536 bodies.
final_cases() {
  for round in 1 2; do
    for bodies in 16384 65536; do
      common=(--engine fragment --bodies "$bodies" --method leapfrog)
      timed "off-$bodies-$round" - "${common[@]}"
      timed "merge-$bodies-$round" - "${common[@]}" "${merge[@]}"
      timed "merge-bpf4-$bodies-$round" - "${common[@]}" "${merge[@]}" --set bodies-per-fragment=4
      [ "$bodies" = 65536 ] || timed "C27-$bodies-$round" C27 "${common[@]}" "${merge[@]}"
    done
  done
}
if [ -n "${FINAL:-}" ]; then
  final_cases
  exit 0
fi
for round in 1 2; do
  common=(--engine fragment --bodies 16384 --method leapfrog)
  timed "off-$round" - "${common[@]}"
  timed "c-$round" - "${common[@]}" "${merge[@]}"
  for variant in "${variants_run[@]}"; do timed "$variant-$round" "$variant" "${common[@]}" "${merge[@]}"; done
  for layout in unroll=4x4 bodies-per-fragment=8; do
    timed "off-$layout-$round" - "${common[@]}" --set "$layout"
    timed "merge-$layout-$round" "$layout_variant" "${common[@]}" --set "$layout" "${merge[@]}"
  done
done
