#!/usr/bin/env bash
# Round 48 on nvidia-h200 (16 cores): a scene's making before and after its random stream a body
# (docs/experiments/scene_time.cpp, carried as build-scenes/), then 200M bodies made a part a rank
# by 2 ranks sharing the GPU and stepped once in parts. After tools/device_test.sh stage:
#   bash docs/experiments/h200_round48_scenes.sh BUILD
set -uo pipefail
build=$(realpath "${1:?build folder}")
nproc
build-scenes/scene_time_old plummer 16777216
build-scenes/scene_time_new plummer 16777216
build-scenes/scene_time_new plummer 134217728
build-scenes/scene_time_new uniform-sphere 16777216
build-scenes/scene_time_new galaxies 16777216
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
mkdir -p /tmp/p
/usr/bin/time -v "$build/device-bin/mpiexec" --oversubscribe -x __EGL_VENDOR_LIBRARY_FILENAMES -n 2 \
  "$build/nbody" simulate --engine tree --set distribute=decompose --bodies 200000000 --steps 1 \
  --snapshot-files ranks -o /tmp/p/p.hdf5 2>&1 |
  grep -E "simulate|Elapsed|Maximum resident|^nbody"
ls -la /tmp/p
