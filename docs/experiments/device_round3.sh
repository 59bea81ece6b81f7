#!/usr/bin/env bash
# One device call's worth of measurements (see docs/performance-history.md). Run from the repo root on
# the H100 with: bash docs/experiments/device_probe.sh bash docs/experiments/device_round3.sh BINARY
set -u
B=$1
q() { "$B" bench --seconds 0.15 "$@" 2>/dev/null | grep -E '^(fragment|compute|cpu) ' ; }
echo "== compute N=16384 euler, group 512, slices x bodies-per-thread"
q --engine compute --sweep --set group-size=512 --bodies 16384 --csv $OUT/c16k.csv
echo "== compute N=16384 euler, group 256, slices 16/32"
for s in 16 32; do q --engine compute --set group-size=256 --set slices=$s --set bodies-per-thread=1 --bodies 16384; done
echo "== compute N=1M euler, slices 1"
for b in 1 2; do q --engine compute --set slices=1 --set bodies-per-thread=$b --bodies 1048576 --steps 2 --repetitions 3; done
echo "== compute auto, N sweep"
for n in 1024 4096 16384 65536 262144; do q --engine compute --bodies $n --csv $OUT/cauto$n.csv; done
q --engine compute --bodies 16384 --method rk2,rk4
echo "== fragment N=16384, unroll 2x2, bodies x slices"
q --engine fragment --sweep --set unroll=2x2 --bodies 16384 --csv $OUT/f16k.csv
echo "== fragment N=65536"
for s in 1 2; do q --engine fragment --set bodies-per-fragment=4 --set slices=$s --bodies 65536 --steps 3 --repetitions 3; done
echo "== dump"
mkdir -p /tmp/dump
NBODY_DUMP_PROGRAMS=/tmp/dump "$B" simulate --engine compute --set bodies-per-thread=2 --set slices=1 --bodies 20000 --steps 1 -q -o /tmp/x.csv
NBODY_DUMP_PROGRAMS=/tmp/dump "$B" simulate --engine compute --set bodies-per-thread=1 --bodies 20000 --steps 1 -q -o /tmp/x.csv
NBODY_DUMP_PROGRAMS=/tmp/dump "$B" simulate --engine fragment --bodies 20000 --steps 1 -q -o /tmp/x.csv
tar czf $OUT/dump.tgz -C /tmp dump
