#!/usr/bin/env bash
# Configures and builds nbody-gl into build/ (Release, warnings as errors).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DNBODY_WERROR=ON
cmake --build build --parallel "$(nproc)"
