#!/usr/bin/env bash
# The tree's capacity on one GPU (round 20): its speed where its arrays stay in storage buffers
# (1M, 16.8M, 64M), past one storage block where they move into textures (100M), and at the most
# bodies the GPU's memory holds (LARGEST, 300M on an 80 GB H100, 500M on an H200): bench (Euler),
# sampled accuracy, a snapshot written and read back, and the GPU's memory at its fullest. Run on
# the device after tools/device_test.sh:
#   bash docs/experiments/capacity.sh BUILD/nbody OUT_DIR [LARGEST] [PART]
# PART (all by default): `small` (up to 100M; the uniform sphere at 1M and 16.8M also at accuracy
# 0.001, Ryoanji's 99th percentile), `largest` (bench, Plummer), `largest-uniform` or `snapshot`, for
# device calls of 10 minutes. bench samples the accuracy (65536 bodies against a double-precision
# sum).
set -uo pipefail
nbody=${1:?nbody binary}
out=${2:?output folder}
largest=${3:-300000000}
part=${4:-all}
scratch=${SCRATCH:-/tmp/nbody-capacity}
mkdir -p "$out" "$scratch"
nvidia-smi --query-gpu=name,memory.total --format=csv >"$out/gpu.txt" 2>&1

# Runs a command, saving its output as NAME.txt with its wall time and the most GPU memory it used.
timed() {
  local name=$1
  shift
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 500 >"$scratch/$name.mem" 2>/dev/null &
  local sampler=$! began=$SECONDS
  "$@" >"$out/$name.txt" 2>&1
  local status=$?
  kill "$sampler" 2>/dev/null
  local most
  most=$(sort -n "$scratch/$name.mem" | tail -1)
  echo "exit $status, $((SECONDS - began)) s, most GPU memory ${most} MiB: $*" >>"$out/$name.txt"
  echo "$name: exit $status, $((SECONDS - began)) s, ${most} MiB"
}

bench() { "$nbody" bench --engine tree --method euler "$@"; }

if [ "$part" = small ] || [ "$part" = all ]; then
  timed bench-1m bench --scene plummer -n 1048576 --repetitions 5
  timed bench-16m bench --scene plummer -n 16777216 --repetitions 3
  timed bench-16m-uniform bench --scene uniform-sphere -n 16777216 --repetitions 3
  timed bench-1m-uniform bench --scene uniform-sphere -n 1048576 --repetitions 5
  timed bench-1m-uniform-0.001 bench --scene uniform-sphere -n 1048576 --repetitions 5 --set accuracy=0.001
  timed bench-16m-uniform-0.001 bench --scene uniform-sphere -n 16777216 --repetitions 3 --set accuracy=0.001
  timed bench-64m bench --scene plummer -n 67108864 --steps 2 --repetitions 3
  timed bench-100m bench --scene plummer -n 100000000 --steps 2 --repetitions 3
fi
if [ "$part" = largest ] || [ "$part" = all ]; then
  # 60M keeps its arrays in buffers (the node records just under 2 GiB), 64M has them in textures.
  timed bench-60m bench --scene plummer -n 60000000 --steps 2 --repetitions 3
  timed bench-largest-plummer bench --scene plummer -n "$largest" --steps 1 --repetitions 2
fi
if [ "$part" = largest-uniform ] || [ "$part" = all ]; then
  timed bench-largest-uniform bench --scene uniform-sphere -n "$largest" --steps 1 --repetitions 2
fi
if [ "$part" = snapshot ] || [ "$part" = all ]; then
  # A snapshot of the largest state, written, read back and written again: the same bytes.
  timed simulate-largest "$nbody" simulate --engine tree --scene plummer -n "$largest" --steps 1 \
    -o "$scratch/largest.nbody"
  timed reread-largest "$nbody" simulate --engine tree --input "$scratch/largest.nbody" --steps 0 \
    -o "$scratch/again.nbody"
  if cmp "$scratch/largest.nbody" "$scratch/again.nbody"; then
    echo "snapshot read back and written again: the same $(stat -c %s "$scratch/largest.nbody") bytes" |
      tee -a "$out/reread-largest.txt"
  else
    echo "snapshot read back and written again: DIFFERENT" | tee -a "$out/reread-largest.txt"
  fi
fi
rm -rf "$scratch"
tar -C "$out" -cf "$out.tar" . && rm -rf "$out"
