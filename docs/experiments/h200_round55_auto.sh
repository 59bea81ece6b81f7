#!/usr/bin/env bash
# Round 55 on nvidia-h200 (one GPU; 2 ranks share it): `distribute=auto`, the default, decomposes
# where one GPU cannot hold the replicated tree. At 180M bodies, past the 178,956,970 whose
# accelerations the replicated ranks exchange through one storage block, bench with the defaults
# (refused before this round, "at most 178956970 bodies in a distributed tree run") runs the
# decomposed tree: each rank's bodies_held about N/2 and its LETs. One Euler step, sampled accuracy.
# Run after tools/device_test.sh stage, within one call of 600 s:
#   bash docs/experiments/h200_round55_auto.sh BUILD OUT
set -uo pipefail
build=$(realpath "${1:?build folder}") out=$(realpath "${2:?output folder}")
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 1000 >"$out/memory.txt" &
sampler=$!
began=$SECONDS
timeout 540 "$build/device-bin/mpiexec" --oversubscribe -x __EGL_VENDOR_LIBRARY_FILENAMES -n 2 \
  "$build/nbody" bench --engine tree --method euler --scene plummer --bodies 180000000 --steps 1 \
  --repetitions 1 --json "$out/auto_180m.json" 2>&1 | grep -v 'dlopen error' | cut -c1-300
echo "exit ${PIPESTATUS[0]}, $((SECONDS - began)) s, most GPU memory $(sort -n "$out/memory.txt" | tail -1) MiB"
kill "$sampler" 2>/dev/null
python3 - "$out/auto_180m.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))["results"][0]
except Exception as e:
    sys.exit(f"no JSON: {e}")
print("steps/s", r["steps_per_second"])
for rank in r.get("per_rank", []):
    print({k: rank.get(k) for k in ("rank", "bodies_held", "let_bytes_sent_per_step",
                                    "let_bytes_received_per_step", "state_texture_bytes")})
PY
