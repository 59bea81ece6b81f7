#!/usr/bin/env bash
# Round 41 on nvidia-h200 (one GPU; the ranks share it): the one-GPU tree figures at HEAD, then the
# decomposed tree's outputs at a large N under 2 ranks: a snapshot in parts written, read back by
# 2 ranks, a composited shot; every output line stamped with seconds from its command's start, the
# GPU's memory in use sampled each second, each rank's phases as they end (NBODY_DECOMPOSED_TIMES
# naming OUT/phases) and every 20 s the ranks' processes (state, CPU, resident memory, where they
# wait) and the files written so far. Run after tools/device_test.sh stage:
#   [BENCH_BODIES=""] [SIMULATE_S=300] [SHOT_S=240] bash docs/experiments/h200_round41_parts.sh BUILD OUT [BODIES]
set -uo pipefail
build=${1:?build folder} out=${2:?output folder} bodies=${3:-50000000}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
stamp() { awk -v t0="$(date +%s.%N)" '{ "date +%s.%N" | getline now; close("date +%s.%N");
  printf "%7.1f s  %s\n", now - t0, $0; fflush() }'; }
ranks() { timeout "$1" "$build/device-bin/mpiexec" --oversubscribe -x __EGL_VENDOR_LIBRARY_FILENAMES \
  -n 2 stdbuf -oL -eL "${@:2}" 2>&1 | grep --line-buffered -v dlopen | stamp; }
for n in ${BENCH_BODIES-1048576 16777216}; do
  echo "== bench: one process, tree, $n bodies"
  timeout 120 "$build/nbody" bench --engine tree --scene plummer --bodies $n 2>&1 | grep -E '^tree' | cut -c1-220
done
nvidia-smi --query-gpu=memory.used --format=csv,noheader -l 1 > "$out/memory.txt" &
sampler=$!
mkdir -p "$out/phases"
export NBODY_DECOMPOSED_TIMES="$out/phases"
while sleep 20; do
  date +%T; ps -C nbody -o pid,stat,pcpu,rss,wchan:24,etimes --no-headers; ls -l "$out"/*.hdf5 2>/dev/null
done > "$out/processes.txt" &
watcher=$!
cd "$out"
echo "== simulate: 2 ranks, $bodies bodies, decomposed, 1 step, written in parts"
ranks "${SIMULATE_S:-300}" "$build/nbody" simulate --engine tree --scene plummer --bodies "$bodies" --steps 1 \
  --set distribute=decompose --snapshot-files ranks -o parts.hdf5
ls -l parts.*.hdf5 | awk '{ print $5, $9 }'
echo "== shot: 2 ranks, read back from the parts, 1 step, composited"
ranks "${SHOT_S:-240}" "$build/nbody" shot --engine tree --input parts.0.hdf5 --steps 1 \
  --set distribute=decompose -o parts.png
rm -f parts.*.hdf5
kill "$sampler" "$watcher"
echo "most GPU memory in use: $(sort -n "$out/memory.txt" | tail -1)"
