#!/usr/bin/env bash
# Same bits from two builds (a refactoring promises them): runs `simulate` with every
# engine and the tree's variants (settings, a dense core that spills the walk's stack, the
# potential through the tree, N = 1M and 16.8M Plummer) with binary A and binary B, hashes each
# final state and diagnostics file, and prints the cases whose hashes differ. Exit status 1 if any
# does. On the device machine the tree's prefix sums take the subgroup path, which llvmpipe never
# runs. Needs awk and sha256sum. ~1 minute on llvmpipe without the large cases (SMALL_ONLY=1).
#   bash docs/experiments/same_bits.sh A/nbody B/nbody [OUTDIR]
set -uo pipefail
a=$1 b=$2 out=${3:-$(mktemp -d)}
mkdir -p "$out"
# 4500 bodies in a unit ball and 1500 within 1e-5 of one point: a deep tree.
awk 'BEGIN { srand(5); print "x,y,z,mass,vx,vy,vz"
  for (n = 0; n < 6000;) { x = 2 * rand() - 1; y = 2 * rand() - 1; z = 2 * rand() - 1
    if (x * x + y * y + z * z > 1) continue
    r = n < 4500 ? 1 : 1e-5; printf "%.9g,%.9g,%.9g,%.9g,0,0,0\n", (n < 4500 ? 0 : 0.1) + r * x,
      (n < 4500 ? 0 : 0.2) + r * y, (n < 4500 ? 0 : 0.3) + r * z, 1 / 6000; ++n } }' > "$out/core.csv"
cases=(
  "tree_default|--engine tree -n 5000 --steps 3 --method rk4 --diagnostics-every 1"
  "tree_uniform|--engine tree --scene uniform-sphere -n 7000 --steps 2 --method leapfrog"
  "tree_disk|--engine tree --scene disk -n 4000 --steps 2 --softening 0.001"
  "tree_galaxies|--engine tree --scene galaxies -n 6000 --steps 2"
  "tree_mono_bpt2_g32|--engine tree --set order=1 --set bodies-per-thread=2 --set group-size=32 -n 4000 --steps 2"
  "tree_g16_leaf1|--engine tree --set group-size=16 --set leaf-size=1 -n 3000 --steps 2"
  "tree_g128|--engine tree --set group-size=128 --set theta=0.6 -n 5000 --steps 2"
  "tree_g256|--engine tree --set group-size=256 --set bodies-per-thread=2 -n 5000 --steps 2"
  "tree_core16|--engine tree --input $out/core.csv --softening 1e-8 --steps 2 --set group-size=16"
  "tree_core64|--engine tree --input $out/core.csv --softening 1e-8 --steps 2 --set group-size=64"
  "tree_small|--engine tree -n 65 --steps 5 --softening 0"
  "tree_one|--engine tree -n 1 --steps 2"
  "tree_theta0|--engine tree --set theta=0 -n 2049 --steps 2"
  "tree_potential|--engine tree -n 70000 --steps 1 --diagnostics-every 1"
  "compute|--engine compute -n 3000 --steps 3 --diagnostics-every 1"
  "compute_slices|--engine compute --set slices=4 -n 3000 --steps 2"
  "fragment|--engine fragment -n 3000 --steps 3 --diagnostics-every 1"
)
[ "${SMALL_ONLY:-0}" = 1 ] || cases+=(
  "tree_plummer_1m|--engine tree -n 1048576 --steps 2"
  "tree_uniform_1m|--engine tree --scene uniform-sphere -n 1048576 --steps 1"
  "tree_plummer_16m|--engine tree -n 16777216 --steps 1"
)
differ=0
for entry in "${cases[@]}"; do
  name=${entry%%|*} args=${entry#*|}
  hashes=()
  for binary in "$a" "$b"; do
    diagnostics=()
    [[ $args == *--diagnostics-every* ]] && diagnostics=(--diagnostics "$out/$name.csv")
    # shellcheck disable=SC2086  # the case's arguments are words
    if ! "$binary" simulate --quiet $args "${diagnostics[@]}" --output "$out/$name.nbody" > "$out/$name.log" 2>&1; then
      echo "$name: $binary failed: $(tail -1 "$out/$name.log")"; differ=1; continue 2
    fi
    hashes+=("$(cat "$out/$name.nbody" "${diagnostics[@]:1}" | sha256sum | cut -c1-16)")
    rm -f "$out/$name.nbody"
  done
  if [ "${hashes[0]}" = "${hashes[1]}" ]; then echo "$name: same bits (${hashes[0]})"
  else echo "$name: DIFFERENT (${hashes[0]} / ${hashes[1]})"; differ=1; fi
done
exit $differ
