#!/usr/bin/env bash
# Installs what is missing, builds, then runs every test (labels: cpu, gl), the whole suite again
# under AddressSanitizer + UndefinedBehaviorSanitizer, and the loader fuzzers for a bounded time.
# GL tests need no GPU: they run on Mesa's llvmpipe through a headless EGL context, and fail if
# none can be made.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh
ctest --test-dir build --output-on-failure --parallel "$(nproc)" "$@"
tools/sanitize.sh
tools/fuzz.sh
