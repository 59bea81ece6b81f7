#!/usr/bin/env bash
# Round 65 (docs/performance-history.md) on one H200: the tree walk's heaviest groups first
# (NBODY_WALK_ORDER=heavy-first) against index order. First the same bits on NVIDIA (3 steps of
# euler and rk4 at 1M, the snapshots compared byte for byte), then bench tree euler plummer at 1M
# and 16.8M, each variant three times, alternating. Run on the device after
# tools/device_test.sh stage:
#   bash docs/experiments/h200_round65_order.sh BUILD OUT
# ORDERS (default "index heavy-first") names the variants, ROUNDS (default 3) the alternations;
# round 65's second run added index-read, a temporary patch's variant (performance-history.md).
set -uo pipefail
build=${1:?build folder} out=${2:?output folder}
mkdir -p "$out"
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
quiet() { grep -v 'dlopen error'; }
for method in euler rk4; do
  for order in ${ORDERS:-index heavy-first}; do
    NBODY_WALK_ORDER=$order timeout 120 "$build/nbody" simulate --engine tree --method $method \
      --scene plummer --bodies 1048576 --steps 3 -q -o "/tmp/r65_${method}_$order.nbody" 2>&1 | quiet
  done
  if cmp -s "/tmp/r65_${method}_index.nbody" "/tmp/r65_${method}_heavy-first.nbody"; then
    echo "== same bits, $method, 1048576 bodies, 3 steps: identical"
  else
    echo "== same bits, $method, 1048576 bodies, 3 steps: DIFFER"
  fi
done
for bodies in 1048576 16777216; do
  for round in $(seq ${ROUNDS:-3}); do
    for order in ${ORDERS:-index heavy-first}; do
      echo "== bench tree euler plummer, $bodies bodies, order $order, round $round"
      NBODY_WALK_ORDER=$order timeout 150 "$build/nbody" bench --engine tree --method euler \
        --scene plummer --bodies "$bodies" 2>&1 | quiet | grep -E '^tree .*euler|rror' | cut -c1-200
    done
  done
done
