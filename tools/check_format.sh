#!/usr/bin/env bash
# Fails when a C++ file of src/ or tests/ differs from what clang-format (.clang-format) makes of
# it, naming the files. Fix with: tools/check_format.sh --fix
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -d '' files < <(find src tests \( -name '*.cpp' -o -name '*.h' \) -print0 | sort -z)
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! said=$(clang-format --dry-run --Werror "${files[@]}" 2>&1); then
  unformatted=$(grep -oE '^[^:]+\.(cpp|h):[0-9]+:[0-9]+: error' <<<"$said" | cut -d: -f1 | sort -u)
  [ -n "$unformatted" ] || unformatted="$said"
  echo "check_format: these differ from clang-format (tools/check_format.sh --fix):" >&2
  sed 's/^/  /' <<<"$unformatted" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files as clang-format writes them"
