#!/usr/bin/env bash
# Round 24 (docs/performance-history.md): what an external potential costs. Run on the device after
# tools/device_test.sh stage:
#   bash docs/experiments/h200_round24.sh BUILD/nbody OUT_DIR
# The tree at 1M and 16.8M Plummer bodies and the fragment and compute engines at 16384, each
# without a potential and with MWPotential2014 (the issue's targets: at most 5% of a step at 1M,
# 2% at 16.8M), in alternating order twice so that drift between runs shows; then the tree's
# accuracy in the potential at 1M.
set -uo pipefail
nbody=${1:?nbody binary}
out=${2:?output folder}
mkdir -p "$out"
bench() {  # NAME OPTIONS...
  local name=$1
  shift
  "$nbody" bench --repetitions 7 --json "$out/$name.json" "$@" >"$out/$name.txt" 2>&1
  echo "== $name: $(grep -m1 -E ' euler +[0-9]+ ' "$out/$name.txt")"
}
for round in 1 2; do
  for n in 1048576 16777216; do
    bench "tree-$n-none-$round" --engine tree --bodies "$n"
    bench "tree-$n-mw2014-$round" --engine tree --bodies "$n" --potential mw2014
  done
  for engine in fragment compute; do
    bench "$engine-16384-none-$round" --engine "$engine" --bodies 16384
    bench "$engine-16384-mw2014-$round" --engine "$engine" --bodies 16384 --potential mw2014
  done
done
"$nbody" accuracy --engine tree --bodies 1048576 --potential mw2014 >"$out/accuracy-mw2014.txt" 2>&1
"$nbody" accuracy --engine tree --bodies 1048576 >"$out/accuracy-none.txt" 2>&1
tail -3 "$out"/accuracy-*.txt
tar -C "$out" -cf "$out.tar" . && rm -rf "$out"
