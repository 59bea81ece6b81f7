#!/usr/bin/env bash
# Runs on the H100 device machine (see docs/performance-history.md): unpacks the glvnd loaders carried in
# .gl/, then benchmarks a binary carried in .devbuild/. Not used by CI.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
"$@"
