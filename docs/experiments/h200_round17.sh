#!/usr/bin/env bash
# Round 17 on the H200, after `device_test.sh stage`: does the EGL device platform
# work on NVIDIA's driver now that EGL_EXT_device_base counts (b8f571a), and at what speed?
#   1. EGL step by step (docs/experiments/egl_probe.c): client extensions, each device's
#      extensions, display, config, context;
#   2. the single-process floors (fragment >= 220, compute >= 6700 at 16384, tree 1M Plummer
#      >= 110) on the device platform and on the surfaceless one, interleaved.
# Which device each rank takes is device_test's distributed tier's, and multi_gpu.sh's.
#   bash docs/experiments/h200_round17.sh NBODY EGL_PROBE OUT
set -uo pipefail
nbody=$1 probe=$2 out=$3
mkdir -p "$out"
vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$vendor" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor
echo "== EGL, step by step"
"$probe" | cut -c1-400
for round in 1 2; do
  for platform in device surfaceless; do
    echo "== $platform, round $round"
    NBODY_EGL_PLATFORM=$platform "$nbody" bench --engine fragment,compute --method euler --bodies 16384 \
      --repetitions 5 --json "$out/direct-$platform$round.json" 2>&1 | grep -E '^(fragment|compute) |error'
    NBODY_EGL_PLATFORM=$platform "$nbody" bench --engine tree --scene plummer --bodies 1048576 --repetitions 5 \
      --json "$out/tree1m-$platform$round.json" 2>&1 | grep -E '^tree |error'
  done
done
