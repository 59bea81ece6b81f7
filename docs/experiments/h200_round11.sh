#!/usr/bin/env bash
# Round 11 on the H200 (docs/performance-history.md): the tree walk's stack as a shared-memory ring that
# spills to private memory, and prefix sums through subgroups. Runs on the device after
# `bash .devtest/device_test.sh stage`, with the probe (docs/experiments/tree_probe.cpp) built
# against build-device/ and carried in .devtest/:
#   bash docs/experiments/h200_round11.sh NBODY PROBE [parts...]   parts: ring ring16m deep defaults tuned group bench largest
# Every run has its own timeout, far under the device tool's 600 s a call. Results go to $OUT.
set -u
NBODY=$1
PROBE=$2
shift 2
PARTS=${*:-ring ring16m bench}
OUT=${OUT:-/tmp/round11}
mkdir -p "$OUT"
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.used --format=csv,noheader
rows() { grep -E '^(fragment|compute|tree|cpu) |accuracy|error' ; }
probe_rows() { grep -E 'N=|prefix|GPU ms|lists|error' ; }

ring() {
  echo "== 1M, groups of 128: ring 4 rows (512) / 1024 x spilled nodes 0 / 8192 (subgroup prefix sums); the default with shared prefix sums"
  for scene in plummer uniform-sphere; do
    timeout 120 "$PROBE" --scene $scene --bodies 1048576 --group 128 --stack 0 --stack 1024 \
      --spill 0 --spill 8192 --repeat 15 --samples 4096 2>&1 | probe_rows
    timeout 120 "$PROBE" --scene $scene --bodies 1048576 --group 128 --prefix-sums shared \
      --repeat 15 --samples 0 2>&1 | probe_rows
  done
}

ring16m() {
  echo "== 16M, groups of 128: ring 512 / 1024 / 2048 spilling up to 8192 nodes, 4096 without"
  for scene in plummer uniform-sphere; do
    timeout 200 "$PROBE" --scene $scene --bodies 16777216 --group 128 --stack 512 --stack 1024 --stack 2048 \
      --repeat 3 --samples 0 2>&1 | probe_rows
    timeout 200 "$PROBE" --scene $scene --bodies 16777216 --group 128 --stack 4096 --spill 0 \
      --repeat 3 --samples 0 2>&1 | probe_rows
  done
}

deep() {
  echo "== Plummer 4M / 8M / 16M: the least ring (4 rows) against 4096, both spilling; 16M: groups of 64, 2 bodies a thread, count-only walks"
  for n in 4194304 8388608; do
    timeout 150 "$PROBE" --scene plummer --bodies $n --group 128 --stack 0 --stack 4096 --repeat 3 --samples 0 2>&1 | probe_rows
  done
  timeout 200 "$PROBE" --scene plummer --bodies 16777216 --group 128 --stack 0 --stack 1024 --stack 4096 --repeat 3 --samples 0 2>&1 | probe_rows
  timeout 200 "$PROBE" --scene plummer --bodies 16777216 --group 64 --stack 0 --stack 4096 --repeat 3 --samples 0 2>&1 | probe_rows
  timeout 200 "$PROBE" --scene plummer --bodies 16777216 --group 128 --bodies-per-thread 2 --stack 0 --stack 4096 --repeat 3 --samples 0 2>&1 | probe_rows
  timeout 200 "$PROBE" --scene plummer --bodies 16777216 --group 128 --stack 0 --stack 4096 --count-only --repeat 3 2>&1 | grep -E 'N=|count only'
  timeout 200 "$PROBE" --scene uniform-sphere --bodies 16777216 --group 128 --stack 0 --stack 4096 --repeat 3 --samples 0 2>&1 | probe_rows
}

defaults() {
  echo "== 1M at the defaults (groups of 128, the least ring, spilling, subgroup prefix sums): probe and bench"
  for scene in plummer uniform-sphere; do
    timeout 100 "$PROBE" --scene $scene --bodies 1048576 --group 128 --repeat 15 --samples 4096 2>&1 | probe_rows
    timeout 100 "$NBODY" bench --engine tree --scene $scene --bodies 1048576 --repetitions 3 --seconds 0.3 2>/dev/null | rows
  done
}

tuned() {
  echo "== the automatic ring (tuned above 4M bodies): bench at 1M, 4M, 8M, 16M, Plummer and uniform sphere"
  for n in 1048576 4194304 8388608 16777216; do
    for scene in plummer uniform-sphere; do
      timeout 120 "$NBODY" bench --engine tree --scene $scene --bodies $n --repetitions 3 --seconds 0.3 2>/dev/null | rows
    done
  done
}

group() {
  echo "== 1M Plummer: groups of 256 (ring 1024), tiles of 256"
  timeout 100 "$PROBE" --scene plummer --bodies 1048576 --group 256 --stack 1024 --repeat 15 --samples 4096 2>&1 | probe_rows
  timeout 100 "$PROBE" --scene plummer --bodies 1048576 --group 128 --tile 256 --stack 512 --stack 1024 --repeat 15 --samples 0 2>&1 | probe_rows
}

bench() {
  echo "== bench and accuracy at the defaults: 1M and 16M, Plummer and uniform sphere"
  for n in 1048576 16777216; do
    for scene in plummer uniform-sphere; do
      timeout 100 "$NBODY" bench --engine tree --scene $scene --bodies $n --repetitions 3 --seconds 0.3 2>/dev/null | rows
    done
  done
}

largest() {
  echo "== 64M Plummer: two steps and the accuracy report, with GL debug output"
  NBODY_GL_DEBUG=1 timeout 200 "$NBODY" bench --engine tree --bodies 67108864 --steps 2 --repetitions 1 2>&1 | tail -8
  nvidia-smi --query-gpu=memory.used --format=csv,noheader
}

for part in $PARTS; do "$part"; done
