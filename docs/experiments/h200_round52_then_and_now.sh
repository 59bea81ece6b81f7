#!/usr/bin/env bash
# Round 52 on nvidia-h200: is the one-GPU tree at 1M slower than round 47's (173.1 steps/s then,
# 161.0 in round 51), or only its scene another? Round 47's binary (7192874, built here with the
# device build's flags: `cmake --build B --target nbody`, copied to OLD) and today's, in one lease:
# bench of each at 1M and 16.8M with its own scene (round 47's scenes differ from today's), then
# `accuracy` of each on one and the same 1M input (a .nbody today's binary writes), which times an
# Euler step: the same input, so the same lists. Three runs of each, alternating. After
# tools/device_test.sh stage:
#   bash docs/experiments/h200_round52_then_and_now.sh BUILD OLD OUT
# and, in a call of its own, `... OUT seeds`: each binary's bench at 1M for seeds 2 to 5, and each
# one's seed-1 scene written as CSV and measured (radii about the origin, speeds, mass).
set -uo pipefail
build=$(realpath "${1:?build folder}") old=$(realpath "${2:?round 47 nbody}")
out=$(realpath "${3:?output folder}")
mkdir -p "$out"
part=${4:-then-and-now}
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export LD_LIBRARY_PATH="$build/device-lib"
if [ "$part" = seeds ]; then
  for who in old new; do
    bin=$old
    [ $who = new ] && bin="$build/nbody"
    for seed in 2 3 4 5; do
      echo "== $who seed $seed"
      "$bin" bench --engine tree --scene plummer --bodies 1048576 --seed $seed \
        --json "$out/${who}_$seed.json" 2>&1 | grep -E '^tree .*euler' | cut -c150-200
      python3 -c "import json; r=json.load(open('$out/${who}_$seed.json'))['results'][0]; print('interactions/step', r['interactions_per_step'])"
    done
    "$bin" simulate -q --scene plummer --bodies 1048576 --steps 0 -o "$out/$who.csv"
  done
  python3 - "$out" <<'EOF2'
import sys
import numpy as np
for who in ("old", "new"):
    d = np.loadtxt(f"{sys.argv[1]}/{who}.csv", delimiter=",", skiprows=1, usecols=range(7))
    r = np.sqrt((d[:, :3] ** 2).sum(1)); v = np.sqrt((d[:, 4:7] ** 2).sum(1))
    print(who, "r max %.4g, r percentiles 50/90/99/99.9 %s, v max %.4g, mass sum %.6g" % (
        r.max(), np.percentile(r, [50, 90, 99, 99.9]).round(4), v.max(), d[:, 3].sum()))
EOF2
  exit 0
fi
"$build/nbody" simulate -q --scene plummer --bodies 1048576 --steps 0 -o "$out/start.nbody"
for round in 1 2 3; do
  for who in old new; do
    bin=$old
    [ $who = new ] && bin="$build/nbody"
    for n in 1048576 16777216; do
      echo "== bench, $who binary, tree, $n bodies, run $round"
      timeout 120 "$bin" bench --engine tree --scene plummer --bodies $n \
        --json "$out/bench_${who}_${n}_$round.json" 2>&1 | grep -E '^tree .*euler' | cut -c1-200
    done
    echo "== accuracy, $who binary, tree, the same 1M input, run $round"
    timeout 120 "$bin" accuracy --engine tree --input "$out/start.nbody" --potential-up-to 0 \
      --samples 1024 2>&1 | grep -E '^time' ||
      timeout 120 "$bin" accuracy --engine tree --input "$out/start.nbody" --samples 1024 2>&1 |
      grep -E '^time'
  done
done
python3 - "$out" <<'EOF2'
import json, sys, glob, os
for path in sorted(glob.glob(os.path.join(sys.argv[1], "bench_*.json"))):
    r = json.load(open(path))["results"][0]
    print(os.path.basename(path), "steps/s", r["steps_per_second"], "interactions/step",
          r.get("interactions_per_step"))
EOF2
