#!/usr/bin/env bash
# Round 16 on the H200: playing back series of 1M-body snapshots. Ten Plummer snapshots
# (tree engine) in .nbody and in GADGET HDF5; the window (run --play under Xvfb on NVIDIA's GLX, at
# a rate no frame keeps up with) shows 11 frames of the ten files and 11 frames of a one-file series
# (nothing more to read): the difference over ten is what a snapshot costs to read, check and upload
# (from the page cache: the files were just written). Then record --play films the ten at 1080p.
#   bash docs/experiments/h200_round16.sh NBODY OUT   (xvfb-run on PATH, as device_test.sh stage leaves it)
set -uo pipefail
b=$1 out=$2
mkdir -p "$out/nbody" "$out/hdf5" "$out/one"
for format in nbody hdf5; do
  "$b" simulate --engine tree --scene plummer --bodies 1048576 --steps 20 --snapshot-every 2 -q \
    --snapshot-path "$out/$format/step-{step}.$format" -o "$out/final.nbody"
  echo "$format: $(ls "$out/$format" | grep -c "\.$format$") files, $(du -sm "$out/$format" | cut -f1) MB"
done
cp "$out/nbody/step-000000002.nbody" "$out/one/"
# Wall seconds of `run --play PATTERN` for FRAMES frames, and what it printed.
play() {
  local frames=$1 pattern=$2 began=$EPOCHREALTIME
  xvfb-run -a -s "-screen 0 1920x1080x24" "$b" run --play "$pattern" --play-rate 1e6 --frames "$frames" \
    --no-vsync --hide-panel --width 1920 --height 1080 --print-stats 2>&1 | grep -E 'series at|frames [0-9]'
  python3 -c "import sys; print(f'wall {float(sys.argv[2]) - float(sys.argv[1]):.3f} s')" "$began" "$EPOCHREALTIME"
}
for round in 1 2; do
  echo "== round $round"
  play 11 "$out/one/step-*.nbody"
  play 11 "$out/nbody/step-*.nbody"
  play 11 "$out/hdf5/step-*.hdf5"
done
"$b" record --play "$out/nbody/step-*.nbody" --width 1920 --height 1080 --out "$out/play.mp4" 2>&1 |
  grep -E 'frames of|frames/s|per frame'
rm -rf "$out/nbody" "$out/hdf5" "$out/one" "$out/play.mp4" "$out/final.nbody"
