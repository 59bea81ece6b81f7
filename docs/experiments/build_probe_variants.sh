#!/usr/bin/env bash
# Builds the timing probes of docs/performance-history.md's round 7 ("what limits the inner loop") into
# DIR, from the committed HEAD (not the working tree): nbody_base and one binary per shader edit
# below. The probes change the force law's machine
# code, some of them into wrong physics (finite, so `bench` accepts it): they exist only to time
# what one instruction more or less costs on the H100, never to simulate. Each binary links
# libstdc++ statically so that it runs on the device machine (see docs/experiments/device_probe.sh).
#   bash docs/experiments/build_probe_variants.sh DIR
set -euo pipefail
out=$(realpath -m "${1:?usage: build_probe_variants.sh DIR}")
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out" "$work/src"
git -C "$repo" archive HEAD | tar -x -C "$work/src"
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DNBODY_BUILD_TESTS=OFF \
  -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null

# variant NAME FILE PERL-SUBSTITUTION: builds nbody_NAME with one edit of shaders/FILE.
variant() {
  local name=$1 file=$work/src/shaders/$2 edit=$3
  cp "$file" "$work/original"  # outside shaders/, which the build embeds whole
  [ -n "$edit" ] && perl -0pi -e "$edit" "$file"
  if [ -n "$edit" ] && cmp -s "$file" "$work/original"; then echo "edit for $name matched nothing" >&2; exit 1; fi
  cmake --build "$work/build" --parallel "$(nproc)" --target nbody >/dev/null
  cp "$work/build/nbody" "$out/nbody_$name"
  mv "$work/original" "$file"
  echo "built $out/nbody_$name"
}

rsqrt='float inverseR = inversesqrt\(r2\);'
variant base gravity.glsl ''
# 1/sqrt(r2) replaced by one multiplication: what the reciprocal square root costs.
variant rsqrt-as-multiply gravity.glsl "s/$rsqrt/float inverseR = r2 * uSoftening2;/"
# r2 clamped to the smallest normal float: would drop denormal fix-ups around the rsqrt, if any.
variant clamp gravity.glsl "s/$rsqrt/float inverseR = inversesqrt(max(r2, 1.175494351e-38));/"
# One multiplication by a loop-invariant 1 that the compiler cannot fold.
variant one-more gravity.glsl "s/$rsqrt/float inverseR = inversesqrt(r2) * (uSoftening2 > -1.0 ? 1.0 : 2.0);/"
# 12 instructions instead of 13: the difference as an fma and no mass multiplication.
variant twelve gravity.glsl 's/vec3 d = bodyJ.xyz - ri;/vec3 d = bodyJ.xyz - bodyJ.w * ri;/; s/\(bodyJ.w \* \(inverseR \* inverseR \* inverseR\)\)/(inverseR * inverseR * inverseR)/'
# The compute kernel's j-loop unrolled by hand (the compiler's own unrolling is unknown).
for u in 2 4 8; do
  variant "unroll$u" force.comp "s/for \(int m = 0; m < GROUP_SIZE; \+\+m\) addBody\(sums, ri, tile\[m\]\);/for (int m = 0; m < GROUP_SIZE; m += $u)\n      for (int u = 0; u < $u; ++u) addBody(sums, ri, tile[m + u]);/"
done
