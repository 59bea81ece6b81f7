#!/usr/bin/env bash
# Round 50: the direct pair potential in chunks of texels, the GPU waited for every 2^36 pair terms
# (shaders/diagnostics.comp STAGE 3). On the H200 after `device_test.sh stage`, from the checkout:
#   bash docs/experiments/h200_round50_potential.sh > $OUT/round50.txt
# `accuracy` checks the tree's potential against the direct sum up to 4194304 bodies by default:
# in round 38 that one dispatch of ~20 s came out as -2.2e278 once. Here it runs twice at 4194304
# (the same bits both times expected), and `simulate --diagnostics` of the compute engine sums the
# same state's potential (the same bits as accuracy's direct sum expected).
set -u
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
B=$PWD/build-device
cd "$(mktemp -d)" || exit 1
N=4194304
for run in 1 2; do
  echo "== accuracy, tree, N = $N, run $run"
  /usr/bin/time -f "wall %e s, max resident %M KB" "$B/nbody" accuracy --engine tree --bodies $N \
    --samples 1024 --json "acc$run.json" 2>&1 | tail -4
  python3 -c "import json,sys; j=json.load(open('acc$run.json')); print('potential_relative_error', repr(j.get('potential_relative_error')))"
done
echo "== simulate, compute, N = $N, steps 0, diagnostics"
/usr/bin/time -f "wall %e s" "$B/nbody" simulate --engine compute --bodies $N --steps 0 \
  --diagnostics d.csv -o s.nbody 2>&1 | tail -2
cut -d, -f5-7 d.csv
