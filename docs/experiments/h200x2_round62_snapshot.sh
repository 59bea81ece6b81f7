#!/usr/bin/env bash
# Round 62 on nvidia-h200-x2 (a GPU a rank): the capacity target's snapshot, 950M bodies decomposed
# over the two GPUs, written in parts and read back, each step within one call of 600 s:
#   write: `simulate` of the Plummer scene made a part a rank, 0 steps, the state written a GADGET
#          HDF5 file a rank (--snapshot-files ranks: 64 B a body, ~61 GB in all) into SCRATCH;
#   read:  `accuracy` of those parts read back a share a rank (nothing gathered), its force error
#          sampled as bench samples it (2^40 / N judged bodies): the same figures, bit for bit, as
#          `accuracy` of the scene itself (MODE=scene, for the comparison).
# Each GPU's memory in use sampled every 0.5 s, each rank's phases on stderr
# (NBODY_DECOMPOSED_TIMES), the ranks' resident memory from /usr/bin/time. Run after
# tools/device_test.sh stage:
#   MODE=write|read|scene [LIMIT_S=580] [RANKS=2] bash docs/experiments/h200x2_round62_snapshot.sh \
#     BUILD OUT SCRATCH [BODIES]
set -uo pipefail
build=$(realpath "${1:?build folder}") out=$(realpath "${2:?output folder}")
scratch=$(realpath "${3:?scratch folder, outside OUT: the parts are ~61 GB}")
bodies=${4:-950000000} mode=${MODE:?MODE=write, read or scene} ranks=${RANKS:-2}
mkdir -p "$out" "$scratch"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NBODY_DECOMPOSED_TIMES=1
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
judged=$(( (1 << 40) / bodies ))
case $mode in
  write) command=(simulate --engine tree --set distribute=decompose --scene plummer
                  --bodies "$bodies" --steps 0 --snapshot-files ranks -o "$scratch/parts.hdf5") ;;
  read) command=(accuracy --engine tree --set distribute=decompose --input "$scratch/parts.0.hdf5"
                 --samples "$judged" --json "$out/accuracy_read_$bodies.json") ;;
  scene) command=(accuracy --engine tree --set distribute=decompose --scene plummer
                  --bodies "$bodies" --samples "$judged" --json "$out/accuracy_scene_$bodies.json") ;;
  *) echo "MODE is write, read or scene" >&2; exit 2 ;;
esac
nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 500 \
  >"$out/memory_${mode}_$bodies.txt" &
sampler=$!
began=$SECONDS
timeout "${LIMIT_S:-580}" "$build/device-bin/mpiexec" --bind-to none \
  -x __EGL_VENDOR_LIBRARY_FILENAMES -x NBODY_DECOMPOSED_TIMES -n "$ranks" \
  /usr/bin/time -f "rank wall %e s, most resident %M KB" "$build/nbody" "${command[@]}" 2>&1 |
  grep -v -e 'dlopen error' -e pmix | while IFS= read -r line; do
    printf '%5d s  %s\n' $((SECONDS - began)) "$line"
  done >"$out/${mode}_$bodies.txt"
status=${PIPESTATUS[0]}
kill "$sampler" 2>/dev/null
grep -E '^ *[0-9]+ s  (simulate|accuracy|units|force|rank [0-9]|.*rror|.*refus|.*wall)' \
  "$out/${mode}_$bodies.txt" | cut -c1-300
echo "$mode $bodies: exit $status, $((SECONDS - began)) s"
find "$scratch" -maxdepth 1 -type f -printf "%s bytes  %p\n"
for gpu in 0 1; do
  echo "GPU $gpu: most memory in use $(grep "^$gpu," "$out/memory_${mode}_$bodies.txt" | cut -d, -f2 |
    sort -n | tail -1) MiB of $(nvidia-smi -i $gpu --query-gpu=memory.total --format=csv,noheader)"
done
