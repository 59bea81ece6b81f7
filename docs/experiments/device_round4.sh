#!/usr/bin/env bash
# The measurements behind docs/performance-history.md, in one device call. On the H100, from the repo root:
#   bash docs/experiments/device_probe.sh bash docs/experiments/device_round4.sh BINARY
set -u
B=$1
q() { "$B" bench --seconds 0.2 "$@" 2>/dev/null | grep -E '^(fragment|compute|cpu) ' ; }
echo "== paper table 3 ladder: fragment, one body per fragment, N=16384 euler"
for u in 1x1 2x2 4x4 8x8; do q --engine fragment --set unroll=$u --set bodies-per-fragment=1 --set slices=1 --bodies 16384 --csv $OUT/ladder_$u.csv; done
echo "== fragment bodies-per-fragment 2/4 x slices 2/4/8 x unroll, N=16384 euler"
for u in 1x1 2x2 4x4; do for b in 2 4; do for s in 2 4 8; do q --engine fragment --set unroll=$u --set bodies-per-fragment=$b --set slices=$s --bodies 16384; done; done; done
echo "== defaults, N=16384, methods x readback"
q --engine fragment,compute --method euler,rk2,rk4 --readback none,sync,async --bodies 16384 --json $OUT/defaults16k.json
echo "== fragment default N=65536"
q --engine fragment --bodies 65536 --repetitions 3
echo "== compute default, N sweep"
for n in 1024 2048 4096 8192 16384 32768 65536 131072 262144; do q --engine compute --bodies $n; done
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 500 > $OUT/clocks.txt &
q --engine compute --bodies 1048576 --steps 3 --repetitions 3 --json $OUT/compute1m.json
kill %1
echo "== no arguments"
"$B" 2>&1 | tail -6
