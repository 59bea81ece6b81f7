#!/usr/bin/env bash
# The H100's picture (`shot`) and the compute engine's small-N layout, in one device call. On the
# H100, from the repo root: bash docs/experiments/device_probe.sh bash docs/experiments/device_round5.sh BINARY
set -u
B=$1
"$B" shot --scene plummer --bodies 16384 --seed 1 --steps 10 --out $OUT/plummer16k-h100.png 2>&1 | tail -3
"$B" shot --engine compute --scene plummer --bodies 16384 --seed 1 --steps 10 --out $OUT/plummer16k-h100-compute.png 2>&1 | tail -1
q() { "$B" bench --seconds 0.2 "$@" 2>/dev/null | grep -E '^(fragment|compute|cpu) ' ; }
for n in 1024 2048 4096 8192; do q --engine compute --bodies $n; done
q --engine compute --bodies 1048576 --steps 2 --repetitions 3
