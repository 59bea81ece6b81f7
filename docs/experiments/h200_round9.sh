#!/usr/bin/env bash
# Round 9 on the H200 (docs/performance-history.md): the tree engine after its walk and group-size fixes
# (accuracy and speed at the defaults, N sweep to 16M, theta near the accuracy limit, the largest
# N), and nbody record's frame rate. Runs on the device after `bash .devtest/device_test.sh stage`:
#   bash docs/experiments/h200_round9.sh NBODY [parts...]     parts: accuracy sweep theta largest record window deep
# (window: after `bash .devtest/device_test.sh run`, whose xvfb-run on NVIDIA's GLX it uses.)
# Every run has its own timeout, far under the device tool's 600 s a call. Results go to $OUT.
set -u
NBODY=$1
shift
PARTS=${*:-accuracy sweep theta record largest}
OUT=${OUT:-/tmp/round9}
mkdir -p "$OUT"
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.used --format=csv,noheader
rows() { grep -E '^(fragment|compute|tree|cpu) |accuracy|error' ; }

accuracy() {
  echo "== accuracy and time split at the defaults, N = 1M"
  for scene in plummer uniform-sphere; do
    timeout 90 "$NBODY" accuracy --engine tree --scene "$scene" --bodies 1048576 --json "$OUT/accuracy-$scene-1m.json" -q
  done
}

sweep() {
  echo "== N sweep, Euler, defaults (tree; compute up to 1M)"
  for n in 16384 65536 262144 1048576 4194304 16777216; do
    engines=tree; [ "$n" -le 1048576 ] && engines=tree,compute
    timeout 100 "$NBODY" bench --engine "$engines" --bodies "$n" --repetitions 3 --seconds 0.3 --json "$OUT/sweep-$n.json" 2>/dev/null | rows
  done
  echo "== uniform sphere, 1M and 16M"
  for n in 1048576 16777216; do
    timeout 100 "$NBODY" bench --engine tree --scene uniform-sphere --bodies $n --repetitions 3 --seconds 0.3 2>/dev/null | rows
  done
}

theta() {
  echo "== theta at 1M: speed (Plummer) and accuracy (uniform sphere, the harder)"
  for theta in 0.47 0.5 0.55; do
    timeout 60 "$NBODY" bench --engine tree --set theta=$theta --bodies 1048576 --repetitions 3 --seconds 0.3 2>/dev/null | rows
    timeout 60 "$NBODY" accuracy --engine tree --set theta=$theta --scene uniform-sphere --bodies 1048576 -q 2>&1 | head -2
  done
}

record() {
  echo "== record: 1920 x 1080, N = 16384, compute engine, 600 frames"
  timeout 100 "$NBODY" record --engine compute --bodies 16384 --frames 600 --width 1920 --height 1080 --out /tmp/r.mp4 2>&1 | tail -4
  ls -la /tmp/r.mp4
}

largest() {
  echo "== the largest N: 64M (2 steps), and one past what the textures take"
  timeout 150 "$NBODY" bench --engine tree --bodies 67108864 --steps 2 --repetitions 1 2>&1 | tail -5
  nvidia-smi --query-gpu=memory.used --format=csv,noheader
}

deep() {
  echo "== round 10: the deeper walk stack above 4M bodies (Plummer 8M, 16M; uniform 16M; 1M unchanged)"
  for n in 1048576 8388608 16777216; do
    timeout 100 "$NBODY" bench --engine tree --bodies $n --repetitions 3 --seconds 0.3 2>/dev/null | rows
  done
  timeout 100 "$NBODY" bench --engine tree --scene uniform-sphere --bodies 16777216 --repetitions 3 --seconds 0.3 2>/dev/null | rows
}

window() {
  echo "== the window, 1920 x 1080, N = 16384, compute engine, no vsync: without and with recording"
  export PATH=/opt/nbody-xvfb/bin:$PATH
  for record in "" "--record /tmp/w.mp4"; do
    # shellcheck disable=SC2086  # the words of $record
    timeout 100 xvfb-run -a -s "-screen 0 1920x1080x24" "$NBODY" run --engine compute --bodies 16384 --no-vsync \
      --width 1920 --height 1080 --frames 600 --print-stats $record 2>&1 | tail -12
  done
  ls -la /tmp/w.mp4
}

for part in $PARTS; do "$part"; done
