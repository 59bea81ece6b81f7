#!/usr/bin/env bash
# The targets of `nbody serve` on a GPU machine (docs/serve.md, "Measured"): for each case, bench's
# steps/s alone; then a served session at 1280 x 800 with the panel shown, watched by 1 and by 3
# viewers of tools/serve_probe.py that acknowledge every frame (the frames/s each receives, the
# steps/s the simulation keeps meanwhile); the drag-to-picture latency of a paused session with the
# panel hidden; and the frame rate of a paused 16.8M-body tree session.
#   tools/serve_bench.sh NBODY [SECONDS]       (PYTHON=... for another python3)
# One line per figure; a JSON line per case in $OUT/serve_bench.jsonl where OUT is set.
set -euo pipefail
nbody=$1
seconds=${2:-10}
probe=$(cd "$(dirname "$0")" && pwd)/serve_probe.py
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT

# nbody serve --port 0 OPTIONS in the background: sets pid and url once it listens.
serve() {
  "$nbody" serve --port 0 "$@" >"$work/serve.out" 2>"$work/serve.err" &
  pid=$!
  for _ in $(seq 300); do
    url=$(sed -n 's/^serve: open //p' "$work/serve.out")
    [ -n "$url" ] && sleep 3 && return 0  # a few seconds for the steps per frame to settle
    sleep 0.2
  done
  cat "$work/serve.err"
  return 1
}

stop() {
  kill -TERM "$pid" && wait "$pid" || true
}

bench_steps() {  # ENGINE N: bench's median steps/s
  "$nbody" bench --engine "$1" --bodies "$2" --json "$work/bench.json" >/dev/null
  "$python" -c "import json,sys; print(json.load(open(sys.argv[1]))['results'][0]['steps_per_second'])" \
    "$work/bench.json"
}

record() {  # a JSON line
  echo "$1"
  [ -n "${OUT:-}" ] && echo "$1" >>"$OUT/serve_bench.jsonl"
  return 0
}

throughput_case() {  # ENGINE N
  local bench
  bench=$(bench_steps "$1" "$2")
  echo "serve_bench: $1 at N = $2: bench $bench steps/s"
  for viewers in 1 3; do
    serve --engine "$1" --bodies "$2"
    record "$("$python" "$probe" "$url" --viewers "$viewers" --seconds "$seconds" | tail -1 |
      "$python" -c "import json,sys; d=json.load(sys.stdin); d['bench_steps_per_second']=$bench; print(json.dumps(d))")"
    stop
  done
}

throughput_case fragment 16384
throughput_case compute 16384
throughput_case tree 1048576
serve --engine fragment --bodies 16384 --paused --hide-panel
record "$("$python" "$probe" "$url" --seconds 0 --latency-samples 40 | tail -1)"
stop
serve --engine tree --bodies 16777216 --paused
record "$("$python" "$probe" "$url" --seconds "$seconds" | tail -1)"
stop
