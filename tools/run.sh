#!/usr/bin/env bash
# Installs what is missing, builds, then runs nbody with the given arguments (none: its main job).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh >/dev/null
exec build/nbody "$@"
