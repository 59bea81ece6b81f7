#!/usr/bin/env bash
# Round 17 on the H200 (issue 25), after `device_test.sh stage`: does the EGL device platform
# work on NVIDIA's driver now that EGL_EXT_device_base counts (b8f571a), and at what speed?
#   1. EGL step by step (docs/experiments/egl_probe.c): client extensions, each device's
#      extensions, display, config, context;
#   2. which device each rank of `mpiexec -n 2` reports;
#   3. the single-process floors (fragment >= 220, compute >= 6700 at 16384, tree 1M Plummer
#      >= 110) on the device platform and on the surfaceless one, interleaved.
#   bash docs/experiments/h200_round17.sh NBODY EGL_PROBE MPIEXEC OUT
set -uo pipefail
nbody=$1 probe=$2 mpiexec=$3 out=$4
mkdir -p "$out"
echo "== EGL, step by step"
"$probe" | cut -c1-400
echo "== the ranks' devices"
"$mpiexec" -n 2 --bind-to none "$nbody" simulate --engine compute --bodies 4096 --steps 1 -o "$out/r.nbody" 2>&1 |
  grep rank
for round in 1 2; do
  for platform in device surfaceless; do
    echo "== $platform, round $round"
    NBODY_EGL_PLATFORM=$platform "$nbody" bench --engine fragment,compute --method euler --bodies 16384 \
      --repetitions 5 --json "$out/direct-$platform$round.json" 2>&1 | grep -E '^(fragment|compute) |error'
    NBODY_EGL_PLATFORM=$platform "$nbody" bench --engine tree --scene plummer --bodies 1048576 --repetitions 5 \
      --json "$out/tree1m-$platform$round.json" 2>&1 | grep -E '^tree |error'
  done
done
