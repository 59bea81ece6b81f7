#!/usr/bin/env bash
# Runs the libFuzzer targets (clang, ASan + UBSan, built in build-asan/ by tools/sanitize.sh, which
# this builds first where needed) each for a bounded time (FUZZ_SECONDS, default 5) on a copy of its corpus in tests/fuzz/corpus/NAME/, with the
# dictionary tests/fuzz/NAME.dict where there is one. The targets: the CSV, binary snapshot,
# TIPSY, GADGET-2 binary and GADGET HDF5 loaders (libhdf5 in a child process), the command line
# (random argument vectors through the real parser) and the input messages of `nbody serve`'s
# viewers. A crash, leak, undefined behaviour or hang fails the script and leaves the input in
# build-asan/fuzz/. The targets run as many at once as there are cores.
# To grow the corpus on purpose: FUZZ_KEEP=1 tools/fuzz.sh (new inputs go into tests/fuzz/corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-5}
tools/sanitize.sh --build-only
out=build-asan/fuzz
mkdir -p "$out"
# One target on its corpus; what it found, or why it failed, in one report printed whole.
fuzz_one() {  # CORPUS-FOLDER
  local corpus=$1 name work log
  name=$(basename "$corpus")
  work=$out/corpus-$name
  rm -rf "$work" && mkdir -p "$work"
  if [ -n "${FUZZ_KEEP:-}" ]; then work=$corpus; else cp "$corpus"/* "$work"/; fi
  log=$out/$name.log
  local dictionary=()
  if [ -f "tests/fuzz/$name.dict" ]; then dictionary=(-dict="tests/fuzz/$name.dict"); fi
  if ! "build-asan/tests/fuzz/${name}_fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 \
       "${dictionary[@]}" -timeout=10 -print_final_stats=1 -artifact_prefix="$out"/ "$work" \
       "$corpus" >"$log" 2>&1; then
    { tail -40 "$log"; echo "fuzz: ${name}_fuzzer failed; the input is in $out/ (see $log)"; } \
      >"$out/$name.report"
    cat "$out/$name.report"
    return 1
  fi
  { echo "fuzz: ${name}_fuzzer ran ${seconds} s"
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$log" | sed 's/^/  /' ||
      true; } \
    >"$out/$name.report"
  cat "$out/$name.report"
}
export -f fuzz_one
export out seconds
# As many targets at once as there are cores: each runs its full time, the phase ends sooner.
if ! printf '%s\0' tests/fuzz/corpus/*/ | xargs -0 -n 1 -P "$(nproc)" bash -c 'set -euo pipefail; fuzz_one "$1"' _; then
  echo "fuzz: a fuzzer failed (above)"
  exit 1
fi
echo "fuzz: all fuzzers ran clean"
