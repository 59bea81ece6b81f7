#!/usr/bin/env bash
# Installs what is missing, checks that the C++ is as clang-format writes it, builds, then runs
# every test (labels: cpu, gl), the whole suite again under AddressSanitizer +
# UndefinedBehaviorSanitizer, and the loader fuzzers for a bounded time.
# GL tests need no GPU: they run on Mesa's llvmpipe through a headless EGL context, and fail if
# none can be made. The independent readers of GADGET, TIPSY and XDMF files (Debian's h5dump,
# splash, h5py and yt: ctest label `readers`, tests/tools/formats_test.py) are installed by
# tools/setup.sh (yt with its ~80 packages takes ~15 s) and run every time; tools/device_test.sh
# leaves that label out, the device having none of them.
# Each phase's time is printed as it ends (CI keeps the run under 60 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
phase() {  # NAME COMMAND...: runs it and says how long it took
  local started=$SECONDS
  "${@:2}"
  echo "test.sh: $1 took $((SECONDS - started)) s ($((SECONDS / 60)) min in all)"
}
phase setup tools/setup.sh
phase format tools/check_format.sh
phase build tools/build.sh
phase web env NBODY_WERROR=ON tools/web.sh build-web  # the web page, which a browser test opens
tools/seed_test_costs.sh build
# A test without a TIMEOUT of its own ends after 900 s (the longest take ~110 s here): a hang is
# then a named failure, not CI's whole time (tools/sanitize.sh likewise).
phase tests ctest --test-dir build --output-on-failure --parallel "$(nproc)" --timeout 900 "$@"
phase sanitized tools/sanitize.sh
phase fuzz tools/fuzz.sh
