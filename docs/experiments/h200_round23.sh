#!/usr/bin/env bash
# Round 23 (docs/performance-history.md): the sprites added up by compute shaders. Run on the device
# after tools/device_test.sh (its xvfb-run on NVIDIA's GLX is then under /opt/nbody-xvfb/bin):
#   bash docs/experiments/h200_round23.sh BUILD/nbody OUT_DIR
# 1. tools/serve_bench.sh: bench, then served sessions watched by 1 and 3 viewers, the drag, 16.8M
#    paused. 2. Served sessions with --print-stats (the GPU time of drawing, the steps a frame) with
#    a viewer beside them. 3. The window through Xvfb at 16.8M, paused, and at 1M running.
set -uo pipefail
nbody=${1:?nbody binary}
out=${2:?output folder}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/../.." && pwd)
export PATH=/opt/nbody-xvfb/bin:$PATH
OUT=$out "$here/tools/serve_bench.sh" "$nbody" 8 2>&1 | tee "$out/serve_bench.txt"

served() {  # NAME SECONDS OPTIONS...: a served session with one probe watching it
  local name=$1 seconds=$2
  shift 2
  "$nbody" serve --port 0 --print-stats "$@" >"$out/$name.out" 2>"$out/$name.err" &
  local pid=$! url=
  for _ in $(seq 600); do
    url=$(sed -n 's/^serve: open //p' "$out/$name.out")
    [ -n "$url" ] && break
    sleep 0.2
  done
  python3 "$here/tools/serve_probe.py" "$url" --seconds 3 >/dev/null 2>&1  # the first frames
  python3 "$here/tools/serve_probe.py" "$url" --seconds "$seconds" 2>&1 | tail -1 >"$out/$name.probe"
  kill -TERM "$pid"
  wait "$pid"
  echo "== $name: $(cat "$out/$name.probe")"
  grep -m1 'run: frames' "$out/$name.out"
}

served tree1m-auto 10 --engine tree --bodies 1048576
served tree1m-5 10 --engine tree --bodies 1048576 --steps-per-frame 5
served tree16m-paused 10 --engine tree --bodies 16777216 --paused
served tree16m-paused-no-vsync 10 --engine tree --bodies 16777216 --paused --no-vsync
served fragment16k-auto 10 --engine fragment --bodies 16384
served compute16k-auto 10 --engine compute --bodies 16384

window() {  # NAME OPTIONS...: the window through Xvfb on NVIDIA's GLX
  local name=$1
  shift
  xvfb-run -a -s "-screen 0 1280x800x24" "$nbody" run --width 1280 --height 800 --print-stats "$@" \
    >"$out/$name.out" 2>"$out/$name.err"
  echo "== window $name (exit $?): $(grep -m1 'run: frames' "$out/$name.out")"
}
window tree16m-paused --engine tree --bodies 16777216 --paused --frames 80
window tree16m-paused-no-vsync --engine tree --bodies 16777216 --paused --frames 80 --no-vsync
window tree1m --engine tree --bodies 1048576 --frames 200
tar -C "$out" -cf "$out.tar" . && rm -rf "$out"
