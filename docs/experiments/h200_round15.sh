#!/usr/bin/env bash
# Round 15 on the H200, after the formats (IDs and components: rk_combine.glsl copies velocity.w)
# and the hardening (record checks the state between frames) were merged: the single-process
# figures of round 14 again (fragment and compute at 16384, the tree at 1M and 16.8M Plummer,
# Euler), and `record` at 1920 x 1080, N = 16384, compute, 600 frames (105.7 frames/s when
# `record` came).
#   bash docs/experiments/h200_round15.sh NBODY OUT
set -uo pipefail
b=$1 out=$2
mkdir -p "$out"
for round in 1 2; do
  "$b" bench --engine fragment,compute --method euler --bodies 16384 --repetitions 7 --json "$out/direct$round.json" \
    2>&1 | grep -E '^(fragment|compute) '
  "$b" bench --engine tree --scene plummer --bodies 1048576 --repetitions 7 --json "$out/tree1m$round.json" 2>&1 |
    grep -E '^tree '
done
"$b" bench --engine tree --scene plummer --bodies 16777216 --repetitions 5 --json "$out/tree16m.json" 2>&1 |
  grep -E '^tree '
"$b" record --engine compute --bodies 16384 --frames 600 --width 1920 --height 1080 --out "$out/record.mp4" 2>&1 |
  grep -E 'frames/s|per frame'
rm -f "$out/record.mp4"
