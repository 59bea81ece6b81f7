#!/usr/bin/env bash
# Gives ctest in a fresh build tree the times of the long tests (tests/ctest_costs.txt), so that it
# starts them first: without them it starts the tests in the order they are listed, and a long one
# listed last (the browser test) runs alone at the end while the other core waits. A tree that has
# run its tests keeps its own times and is left as it is.
#   tools/seed_test_costs.sh BUILD_DIR   seed BUILD_DIR where it has no times yet
#   tools/seed_test_costs.sh --refresh   rewrite tests/ctest_costs.txt from build/'s last runs
#                                        (every test of 2 s or more)
set -euo pipefail
cd "$(dirname "$0")/.."
seed=tests/ctest_costs.txt
if [ "${1:-}" = "--refresh" ]; then
  costs=build/Testing/Temporary/CTestCostData.txt
  listed=$(ctest --test-dir build -N | sed -n 's/^ *Test *#[0-9]*: //p')
  awk -v listed="$listed" 'BEGIN { n = split(listed, names, "\n"); for (i = 1; i <= n; ++i) known[names[i]] = 1 }
       /^---/ { exit }
       { name = $0; sub(/ [^ ]+ [^ ]+$/, "", name); if ($NF >= 2 && name in known) print name, 1, $NF }' \
    "$costs" | sort -t' ' -k3 -g -r >"$seed"
  echo "---" >>"$seed"
  exit 0
fi
target=${1:?usage: tools/seed_test_costs.sh BUILD_DIR | --refresh}/Testing/Temporary
if [ ! -f "$target/CTestCostData.txt" ]; then
  mkdir -p "$target" && cp "$seed" "$target/CTestCostData.txt"
fi
