#!/usr/bin/env bash
# The relative opening criterion against theta alone (docs/performance-history.md, round 21): force
# errors (nbody accuracy: 65536 bodies against a double-precision sum) and the time split of one
# evaluation, the coarse estimate walk shown apart, at 1M and 16.8M bodies of Plummer and the
# uniform sphere. Run on the device after `bash .devtest/device_test.sh stage`, with the probe
# (docs/experiments/tree_probe.cpp) built against build-device/ for the parts that use it:
#   bash docs/experiments/relative_opening.sh BUILD/nbody OUT_DIR PART [PROBE]
# PART: alpha (call 1: alpha 0.0007 to 0.0015 at theta 0.8 against theta 0.43 alone), groups (call
# 2: the coarse walk's groups; theta 0.7 and 0.8 at alpha 0.0006 and 0.0007) or bound (call 3: the
# coarse walk's theta; theta 0.8 to 1 at alpha 0.00065). Raw output: docs/bench/h100_round21_relative.txt.
set -uo pipefail
nbody=${1:?nbody binary}
out=${2:?output folder}
part=${3:?alpha, groups or bound}
probe=${4:-}
mkdir -p "$out"
export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"

accuracy() {
  local name=$1
  shift
  timeout 150 "$nbody" accuracy --engine tree --method euler "$@" >"$out/$name.txt" 2>&1
  echo "$name: $(grep -E 'median|time:' "$out/$name.txt" | sed 's/ (one force evaluation and the update)//' | tr '\n' ' ')"
}
relative() {  # NAME SCENE N THETA ALPHA
  accuracy "$1" --scene "$2" -n "$3" --set opening=relative --set theta="$4" --set accuracy="$5"
}
probe16m() {  # probe arguments for each scene at 16.8M
  for scene in plummer uniform-sphere; do
    timeout 200 "$probe" --scene $scene --bodies 16777216 --samples 4096 --repeat 5 --relative "$@" 2>&1 |
      grep -E 'N=|GPU ms|lists|error \(' | tee -a "$out/probe16m.txt"
  done
}

for n in 1048576 16777216; do
  for scene in plummer uniform-sphere; do
    case $part in
      alpha)
        accuracy "$scene-$n-geometric-0.43" --scene "$scene" -n "$n" --set opening=geometric --set theta=0.43
        for alpha in 0.0007 0.001 0.0015; do relative "$scene-$n-relative-$alpha" "$scene" "$n" 0.8 "$alpha"; done ;;
      groups)
        for theta in 0.7 0.8; do
          for alpha in 0.0006 0.0007; do relative "$scene-$n-$theta-$alpha" "$scene" "$n" "$theta" "$alpha"; done
        done ;;
      bound)
        for theta in 0.8 0.9 1; do relative "$scene-$n-$theta-0.00065" "$scene" "$n" "$theta" 0.00065; done ;;
    esac
  done
done
case $part in
  groups) probe16m --theta 0.8 --accuracy 0.0007 --estimate-group 64 --estimate-group 128 --estimate-group 256 ;;
  bound) probe16m --theta 0.8 --accuracy 0.00065 --estimate-theta 2 --estimate-theta 3 ;;
esac
