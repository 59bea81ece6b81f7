#!/usr/bin/env bash
# Round 7 of docs/performance-history.md: what limits the force loop. Times the probes that
# docs/experiments/build_probe_variants.sh builds into DIR. On the H100, from the repo root:
#   bash docs/experiments/device_probe.sh bash docs/experiments/device_round7.sh DIR
set -u
dir=$1
q() { "$@" 2>&1 | grep -E '^(fragment|compute) |rror' ; }
for b in "$dir"/nbody_*; do
  echo "## ${b##*/}"
  for bpt in 1 2 4; do
    q "$b" bench --engine compute --bodies 16384 --seconds 0.3 --repetitions 5 --set bodies-per-thread=$bpt
  done
  q "$b" bench --engine compute --bodies 262144 --steps 10 --repetitions 3
  case $b in *unroll*) ;; *) q "$b" bench --engine fragment --bodies 16384 --seconds 0.4 --repetitions 3 ;; esac
done
