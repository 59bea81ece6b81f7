#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in build-fuzz/ and runs each for a bounded
# time (FUZZ_SECONDS, default 30) on a copy of its corpus in tests/fuzz/corpus/NAME/. A crash, leak
# or undefined behaviour fails the script and leaves the input in build-fuzz/.
# To grow the corpus on purpose: FUZZ_KEEP=1 tools/fuzz.sh (new inputs go into tests/fuzz/corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNBODY_FUZZ=ON \
  -DNBODY_WERROR=ON >/dev/null
cmake --build build-fuzz --parallel "$(nproc)" >/dev/null
for corpus in tests/fuzz/corpus/*/; do
  name=$(basename "$corpus")
  work=build-fuzz/corpus-$name
  rm -rf "$work" && mkdir -p "$work"
  if [ -n "${FUZZ_KEEP:-}" ]; then work=$corpus; else cp "$corpus"/* "$work"/; fi
  echo "fuzz: ${name}_fuzzer for ${seconds} s"
  log=build-fuzz/$name.log
  if ! "build-fuzz/tests/fuzz/${name}_fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 \
       -timeout=10 -print_final_stats=1 -artifact_prefix=build-fuzz/ "$work" "$corpus" >"$log" 2>&1; then
    tail -40 "$log"
    echo "fuzz: ${name}_fuzzer failed; the input is in build-fuzz/ (see $log)"
    exit 1
  fi
  grep -E "stat::number_of_executed_units|stat::new_units_added" "$log" | sed 's/^/  /'
done
echo "fuzz: all fuzzers ran clean"
