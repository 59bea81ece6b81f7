#!/usr/bin/env bash
# Round 53 on nvidia-h200 (one GPU; the ranks share it): the decomposed tree's all-to-alls (the
# LETs, the bodies that migrate) through the node's shared window against MPI_Alltoallv (the window
# refused: Open MPI told to place it in a folder that does not exist). For each path: the phases
# of 3 Euler steps under 2 ranks at 16.8M (NBODY_DECOMPOSED_TIMES: each phase ends with glFinish;
# `send` is a LET round's exchange, the rank reaching it last waits least), then bench under 2
# ranks at 1M and 16.8M, and at 16.8M once more after the other path's; last, the phases of every part at 1M (the link
# in four: ends, straddling, topology, link). Run after tools/device_test.sh stage, within
# one call of 600 s:
#   bash docs/experiments/h200_round53_window_exchange.sh BUILD OUT
# and, after 7d6bfcd, with `split` after OUT: the phases alone, a LET round's `send` in two (the
# counts' MPI_Alltoall, where the ranks wait for the last to pack, then the bytes), each path twice;
# with `parcels`: how fast the CPU reads and writes a parcel's mapped memory, and what a new parcel
# costs (parcel_speed.cpp); with `bench`, after the parcels grow an eighth more and the window's
# all-to-all is undone: one process and 2 ranks at 1M and 16.8M.
set -uo pipefail
build=$(realpath "${1:?build folder}") out=$(realpath "${2:?output folder}")
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
mpi() {  # PATH ARGS...: nbody under 2 ranks sharing the GPU, the exchange's path chosen
  local folder=/dev/shm
  [ "$1" = mpi ] && folder=/nonexistent
  timeout 150 "$build/device-bin/mpiexec" --oversubscribe -x __EGL_VENDOR_LIBRARY_FILENAMES \
    ${NBODY_DECOMPOSED_TIMES:+-x NBODY_DECOMPOSED_TIMES} -x OMPI_MCA_osc_sm_backing_directory="$folder" \
    -n 2 "$build/nbody" "${@:2}" 2>&1 | grep -v 'dlopen error'
}
if [ "${3:-}" = parcels ]; then  # docs/experiments/parcel_speed.cpp, built into BUILD
  LD_LIBRARY_PATH="$build/device-lib" "$build/parcel_speed"
  exit 0
fi
if [ "${3:-}" = bench ]; then  # after the parcels' growth (and the window's all-to-all undone)
  for n in 1048576 16777216; do
    echo "== bench: one process, tree, $n bodies"
    timeout 90 "$build/nbody" bench --engine tree --scene plummer --bodies $n \
      --json "$out/one_$n.json" 2>&1 | grep -E '^tree .*euler' | cut -c1-220
    echo "== bench: 2 ranks, $n bodies, distribute=decompose"
    mpi mpi bench --engine tree --method euler --scene plummer --bodies $n --repetitions 3 \
      --set distribute=decompose --json "$out/two_$n.json" |
      grep -E '^tree .*euler|rank [0-9]|rror' | cut -c1-260
  done
  exit 0
fi
if [ "${3:-}" = split ]; then  # a LET round's exchange: the wait for the counts, then the bytes
  for round in 1 2; do
    for path in window mpi; do
      echo "== $path, round $round: phases, 2 ranks, 16777216 bodies, 3 steps of euler"
      NBODY_DECOMPOSED_TIMES=1 mpi $path simulate --engine tree --set distribute=decompose \
        --bodies 16777216 --steps 3 -q -o /tmp/phases.nbody | grep -E 'decomposed tree|rror' |
        tail -2 | grep -oE 'rank [0-9]|(pack|send-counts|send|place|walk) [0-9.]+' | paste -sd' '
    done
  done
  exit 0
fi
for round in 1 2; do
  for path in window mpi; do
    if [ $round = 1 ]; then
      echo "== $path: phases, 2 ranks, 16777216 bodies, 3 steps of euler"
      NBODY_DECOMPOSED_TIMES=1 mpi $path simulate --engine tree --set distribute=decompose \
        --bodies 16777216 --steps 3 -q -o /tmp/phases.nbody | grep -E 'decomposed tree|rror' |
        sed 's/decomposed tree, ms: //' | tail -2
    fi
    sizes=16777216
    [ $round = 1 ] && sizes="1048576 16777216"
    for n in $sizes; do
      echo "== $path, round $round: bench, 2 ranks, $n bodies, distribute=decompose"
      mpi $path bench --engine tree --method euler --scene plummer --bodies $n --repetitions 3 \
        --set distribute=decompose --json "$out/${path}_${n}_$round.json" |
        grep -E '^tree .*euler|rank [0-9]|rror|through' | cut -c1-260
    done
  done
done
echo "== window: phases, 2 ranks, 1048576 bodies, 3 steps of euler (the link's parts)"
NBODY_DECOMPOSED_TIMES=1 mpi window simulate --engine tree --set distribute=decompose \
  --bodies 1048576 --steps 3 -q -o /tmp/phases.nbody | grep -E 'decomposed tree|rror' |
  sed 's/decomposed tree, ms: //' | tail -2
python3 - "$out" <<'EOF'
import json, sys, glob, os
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    r = json.load(open(path))["results"][0]
    print(os.path.basename(path), "steps/s", r["steps_per_second"])
EOF
