#!/usr/bin/env bash
# Builds the whole test suite with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/
# and runs it. Any memory error or undefined behaviour fails a test, and so does a leak in the tests
# without OpenGL. With OpenGL, leak detection is off: the driver (Mesa) unloads its modules at
# eglTerminate, and their allocations (and UBSan's own) then show as leaks of "<unknown module>"
# that no suppression can name. Our GL objects are counted instead (tests/gl/soak_test.cpp).
set -euo pipefail
cd "$(dirname "$0")/.."
# No -Werror here: GCC warns falsely (maybe-uninitialized in <regex>) under the sanitizers;
# the normal build enforces the warnings.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNBODY_WERROR=OFF \
  -DNBODY_SANITIZE=address,undefined >/dev/null
cmake --build build-asan --parallel "$(nproc)" >/dev/null
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitizer/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  ctest --test-dir build-asan --output-on-failure --parallel "$(nproc)" -L cpu "$@"
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
  ctest --test-dir build-asan --output-on-failure --parallel "$(nproc)" -L gl "$@"
