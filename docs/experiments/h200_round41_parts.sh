#!/usr/bin/env bash
# Round 41 on nvidia-h200 (one GPU; the ranks share it): the one-GPU tree figures at HEAD, then the
# decomposed tree's outputs at a large N under 2 ranks: a snapshot in parts written, read back by
# 2 ranks, a composited shot; every output line stamped with seconds from its command's start, the
# GPU's memory in use sampled each second, each rank's phases as they end (NBODY_DECOMPOSED_TIMES
# naming OUT/phases) and every 20 s the ranks' processes (state, CPU, resident memory, where they
# wait) and the files written so far. Run after tools/device_test.sh stage, within one call of
# 600 s (the defaults: 2 benches of at most 60 s, 240 s and 180 s):
#   [BENCH_BODIES=""] [SIMULATE_S=240] [SHOT_S=180] bash docs/experiments/h200_round41_parts.sh \
#     BUILD OUT [BODIES]
set -uo pipefail
mkdir -p "${2:?output folder}/phases"
build=$(realpath "${1:?build folder}") out=$(realpath "$2") bodies=${3:-50000000}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
stamp() {  # each line with the seconds since the pipe began (bash: no reader's buffering)
  local began=${EPOCHREALTIME/./} line tenths
  while IFS= read -r line; do
    tenths=$(((${EPOCHREALTIME/./} - began) / 100000))
    printf '%5d.%d s  %s\n' $((tenths / 10)) $((tenths % 10)) "$line"
  done
}
ranks() { timeout "$1" "$build/device-bin/mpiexec" --oversubscribe -x __EGL_VENDOR_LIBRARY_FILENAMES \
  -n 2 stdbuf -oL -eL "${@:2}" 2>&1 | grep --line-buffered -v dlopen | stamp; }
for n in ${BENCH_BODIES-1048576 16777216}; do
  echo "== bench: one process, tree, $n bodies"
  timeout 60 "$build/nbody" bench --engine tree --scene plummer --bodies $n 2>&1 | grep -E '^tree' | cut -c1-220
done
nvidia-smi --query-gpu=memory.used --format=csv,noheader -l 1 > "$out/memory.txt" &
sampler=$!
export NBODY_DECOMPOSED_TIMES="$out/phases"
while sleep 20; do
  date +%T; ps -C nbody -o pid,stat,pcpu,rss,wchan:24,etimes --no-headers; ls -l "$out"/*.hdf5 2>/dev/null
done > "$out/processes.txt" &
watcher=$!
trap 'kill "$sampler" "$watcher" 2>/dev/null' EXIT
cd "$out" || exit 1
echo "== simulate: 2 ranks, $bodies bodies, decomposed, 1 step, written in parts"
ranks "${SIMULATE_S:-240}" "$build/nbody" simulate --engine tree --scene plummer --bodies "$bodies" \
  --steps 1 --set distribute=decompose --snapshot-files ranks -o parts.hdf5
ls -l parts.*.hdf5 | awk '{ print $5, $9 }'
echo "== shot: 2 ranks, read back from the parts, 1 step, composited"
ranks "${SHOT_S:-180}" "$build/nbody" shot --engine tree --input parts.0.hdf5 --steps 1 \
  --set distribute=decompose -o parts.png
rm -f parts.*.hdf5
echo "most GPU memory in use: $(sort -n "$out/memory.txt" | tail -1)"
