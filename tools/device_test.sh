#!/usr/bin/env bash
# Every test tier of nbody-gl on the device machine's NVIDIA GPU, in two calls of the `device` tool:
# the cpu tier, the whole gl tier, the golden and regression references, the window
# tier under Xvfb on NVIDIA's GLX and simulate against the independent Python reference, all
# through the real ctest; every golden case's picture on this GPU and every command once with
# NBODY_GL_DEBUG=1, ending with ctest's summary line; then, in a call of its own (the two passed
# the 600 s a call may take), the gl test program in one process.
#
# 1. Here (Debian 12, x86-64), from the repository root:
#      tools/device_test.sh prepare
#    builds build-device/ (Release; libstdc++ and libgcc linked statically; an RPATH to the shared
#    libraries that travel beside the programs) and fills .devtest/ (ignored) with what travels:
#      device_test.sh  this script          manifest      the paths and commit it was made from
#      tree.tar.xz     what ctest needs of build-device/, at its absolute paths: the ctest files and
#                      the test programs name them, so there it is unpacked where it was here,
#                      beside a copy of the checkout the device tool carries (the source tree)
#      gl/*.deb        the glvnd loaders (the device has no libEGL of its own)
#    and .devtest-xvfb/ with xvfb.tar.xz: Xvfb and the Mesa swrast driver its GLX extension needs
#    (made once, cached), and .devtest-lib/ with library.tar.xz (ICU's data, the largest library,
#    apart so that .devtest fits a call), and says how much travels (the device tool takes 64 MiB a
#    call, working tree included, counted in the file system's blocks).
# 2. There, from the same checkout, four calls of one lease, each within the machine's 30 s warm
#    time after the one before: the first leaves the library's bundle there, the second unpacks
#    what .devtest and it carry (`stage`, which may go on to other work with the build, e.g.
#    benchmarks), the third carries Xvfb and runs every test through ctest, the fourth runs the
#    gl test program in one process:
#      run(kind="nvidia-h200", carry=[".devtest-lib"], command="true")
#      run(..., carry=[".devtest"], command="bash .devtest/device_test.sh stage")
#      run(..., timeout_s=600, carry=[".devtest-xvfb"], command="bash .devtest/device_test.sh run")
#      run(..., timeout_s=600, carry=[".devtest-xvfb"], command="bash .devtest/device_test.sh one-process")
#    Logs, ctest's output, its JUnit file and a tar of pictures and debug logs come back in $OUT.
# Optional, here: tools/device_test.sh rehearse runs step 2 on llvmpipe in a private mount
# namespace that hides this checkout (the tree is unpacked afresh, as there): ~10 minutes.
set -uo pipefail

BUNDLE_NAME=.devtest
XVFB_BUNDLE_NAME=.devtest-xvfb
# The build's largest library (ICU's data, which FFmpeg's libxml2 loads) travels in a bundle of its
# own: with it, .devtest and the working tree passed the 64 MiB a call carries, as the tool counts.
# Open MPI's packages travel there too (with Xvfb, .devtest-xvfb and the working tree passed it).
LIBRARY_BUNDLE_NAME=.devtest-lib
LIBRARY_APART=device-lib/libicudata.so
STAGED=/tmp/device_test_staged  # what `stage` unpacked, by part, with the bundle's manifest
BUILD_NAME="build-device"
XVFB_PREFIX=/opt/nbody-xvfb
GL_PACKAGES=(libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
# Open MPI's runtime (mpiexec and what it loads; nbody's own libmpi travels with its libraries),
# unpacked on the device into MPI_PREFIX, not into /, and run relocated (OPAL_PREFIX).
MPI_PACKAGES=(openmpi-bin openmpi-common libopenmpi3 libpmix2 libucx0 libfabric1 libhwloc15 libhwloc-plugins
  libevent-core-2.1-7 libevent-pthreads-2.1-7 libpsm2-2 libpsm-infinipath1 libibverbs1 ibverbs-providers
  librdmacm1 libnl-3-200 libnl-route-3-200 libmunge2 libltdl7 libxnvctrl0)
MPI_PREFIX=/opt/nbody-mpi
# Debian 12's Xvfb and what it and the swrast driver need beyond a bare machine's libraries.
XVFB_PACKAGES=(xvfb x11-xkb-utils xkb-data libgl1-mesa-dri libglx-mesa0 libglapi-mesa libllvm15
  libz3-4 libxml2 libicu72 libxfont2 libfontenc1 libfreetype6 libbrotli1 libpng16-16 libpixman-1-0
  libunwind8 libxkbfile1 libxshmfence1 libedit2 libelf1 libexpat1 libsensors5 libsensors-config
  libpciaccess0 libbsd0 libmd0 libdrm2 libdrm-common libdrm-amdgpu1 libdrm-intel1 libdrm-nouveau2
  libdrm-radeon1 libx11-6 libx11-data libx11-xcb1 libxau6 libxdmcp6 libxcb1 libxcb-dri2-0
  libxcb-dri3-0 libxcb-glx0 libxcb-present0 libxcb-randr0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0
  libxext6 libxfixes3 libxi6 libxinerama1 libxrandr2 libxrender1 libxcursor1 libxxf86vm1)
# Libraries that never travel: glibc's, libstdc++ and libgcc (linked statically), and the GL and
# Vulkan loaders and drivers, which come from the glvnd packages and the machine's driver.
SYSTEM_LIBRARY='^((linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libgcc_s|libstdc\+\+)[.-]|libGL|libEGL|libOpenGL|libvulkan|libOSMesa|libnvidia)'
CARRY_LIMIT_BYTES=$((64 * 1024 * 1024))

die() {
  echo "device_test: $*" >&2
  exit 1
}

# ---------------------------------------------------------------------------------------------
# Here: prepare

# The python3 ctest runs the Python tests with: the first interpreter that has matplotlib
# (tools/plot.py needs it). Debian's /usr/bin/python3 here; the device's PyTorch venv there.
write_python_wrapper() {
  mkdir -p "$(dirname "$1")"
  cat >"$1" <<'EOF'
#!/bin/sh
# Made by tools/device_test.sh: runs the first python3 that can import matplotlib.
IFS=:
for dir in /usr/bin $PATH; do
  [ -x "$dir/python3" ] && "$dir/python3" -c 'import matplotlib' 2>/dev/null && exec "$dir/python3" "$@"
done
exec python3 "$@"
EOF
  chmod +x "$1"
}

# The mpiexec the tests call (CMake's MPIEXEC_EXECUTABLE): the relocated Open MPI where the device
# unpacked it, the system's here.
write_mpiexec_wrapper() {
  mkdir -p "$(dirname "$1")"
  cat >"$1" <<EOF
#!/bin/sh
# Made by tools/device_test.sh: Open MPI's mpiexec, relocated to $MPI_PREFIX where the device carries it.
P=$MPI_PREFIX
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [ -x \$P/usr/bin/mpiexec.openmpi ]; then
  export OPAL_PREFIX=\$P/usr OPAL_SYSCONFDIR=\$P/etc/openmpi PATH=\$P/usr/bin:\$PATH
  export LD_LIBRARY_PATH=\$P/usr/lib/x86_64-linux-gnu/openmpi/lib:\$P/usr/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
  exec \$P/usr/bin/mpiexec.openmpi "\$@"
fi
exec /usr/bin/mpiexec "\$@"
EOF
  chmod +x "$1"
}

configure_and_build() {
  local root=$1 build=$2
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DNBODY_WERROR=ON \
    "-DCMAKE_EXE_LINKER_FLAGS=-static-libstdc++ -static-libgcc -Wl,--disable-new-dtags,-rpath,$build/device-lib" \
    -DPython3_EXECUTABLE="$build/device-bin/python3" -DNBODY_SYSTEM_PYTHON="$build/device-bin/python3" \
    -DMPIEXEC_EXECUTABLE="$build/device-bin/mpiexec" >/dev/null ||
    die "cmake could not configure $build"
  cmake --build "$build" --parallel "${JOBS:-2}" >"$build/device-build.log" 2>&1 ||
    die "the build failed: see $build/device-build.log"
  # Debug information and the static symbol table go (a backtrace then names only exported
  # functions), so that the bundle and the working tree fit one call.
  strip --strip-unneeded "$build/nbody" "$build"/tests/nbody_*_tests ||
    die "could not strip the programs in $build"
}

# Copies `path` into DEVICE_LIB unless glibc or GL provides it there, then what it needs: what ldd
# lists and what it opens at run time by name (GLFW opens libXrandr, libXcursor, ... with dlopen,
# which ldd cannot see).
carry_library() {
  local path=$1 name needed opened
  name=$(basename "$path")
  [[ $name =~ $SYSTEM_LIBRARY ]] && return
  [ -e "$DEVICE_LIB/$name" ] && return
  cp -L "$path" "$DEVICE_LIB/$name"
  for needed in $(ldd "$path" | awk '/=> \// {print $3}'); do carry_library "$needed"; done
  for opened in $(strings -a "$path" | grep -E '^lib[A-Za-z0-9_+-]+\.so\.[0-9]+$' | sort -u); do
    needed=$(ldconfig -p | awk -v n="$opened" '$1 == n && /x86-64/ {print $NF; exit}')
    [ -n "$needed" ] && carry_library "$needed"
  done
}

collect_libraries() {
  local build=$1 binary needed
  DEVICE_LIB=$build/device-lib
  rm -rf "$DEVICE_LIB" && mkdir -p "$DEVICE_LIB"
  for binary in "$build/nbody" "$build"/tests/nbody_*_tests; do
    for needed in $(ldd "$binary" | awk '/=> \// {print $3}'); do carry_library "$needed"; done
  done
  echo "prepare: libraries that travel: $(ls "$DEVICE_LIB" | tr '\n' ' ')"
}

download_debs() {
  local into=$1
  shift
  rm -rf "$into" && mkdir -p "$into"
  (cd "$into" && apt-get download "$@" >/dev/null 2>&1) || die "apt-get download $* failed"
}

# Xvfb unpacked into a private prefix, less documentation and the other Mesa drivers (hard links
# of swrast_dri.so), packed once per set of package versions: xz -9e takes minutes here.
pack_xvfb() {
  local bundle=$1 debs=$2 key stage
  download_debs "$debs" "${XVFB_PACKAGES[@]}"
  key=$(ls "$debs" | sha256sum | cut -c1-16)
  if [ -f "$bundle/xvfb.tar.xz" ] && [ "$(cat "$bundle/xvfb.key" 2>/dev/null)" = "$key" ]; then return; fi
  echo "prepare: packing Xvfb (once per set of package versions; minutes)"
  stage=$(mktemp -d)
  for deb in "$debs"/*.deb; do dpkg -x "$deb" "$stage"; done
  rm -rf "$stage"/usr/share/{doc,man,locale,lintian,bug}
  find "$stage/usr/lib/x86_64-linux-gnu/dri" -name '*.so' ! -name swrast_dri.so -delete
  tar -C "$stage" -cf - . | xz -9e -T0 >"$bundle/xvfb.tar.xz" || die "could not pack Xvfb"
  echo "$key" >"$bundle/xvfb.key"
  rm -rf "$stage"
}

# What ctest needs of the build, with paths relative to /. The source tree is not in it: the device
# tool carries the checkout itself, which the device copies to where it was here (copy_checkout).
pack_tree() {
  local root=$1 build=$2 archive=$3 list
  list=$(mktemp)
  # GADGET-2's sample files, which the tests read (NBODY_GADGET_SAMPLES): tracked in assets/gadget/
  # by default, so carried with the checkout; only a folder the cache names outside it is added.
  local samples
  samples=$(sed -n 's/^NBODY_GADGET_SAMPLES:PATH=//p' "$build/CMakeCache.txt")
  if [ -d "$samples" ]; then
    case "$(realpath "$samples")/" in
      "$(realpath "$root")"/*) ;;
      *) find "$samples" -type f | sed 's|^/||' >>"$list" ;;
    esac
  fi
  (cd "$build" && find . -name CTestTestfile.cmake -o -name '*_include.cmake' -o -name '*_tests.cmake' &&
    printf '%s\n' ./nbody ./tests/nbody_*_tests ./tests/nbody_*_probe ./device-lib ./device-bin) | sed "s|^\./|${build#/}/|" >>"$list"
  tar -C / --exclude="${build#/}/$LIBRARY_APART*" --verbatim-files-from -cf - -T "$list" |
    xz -9 -T0 >"$archive" || die "could not pack the tree"
  (cd / && ls -d "${build#/}/$LIBRARY_APART"* | tar -C / --verbatim-files-from -cf - -T - |
    xz -9 -T0 >"$4") || die "could not pack $LIBRARY_APART"
  rm -f "$list"
}

# What the device tool sends: tracked and untracked-not-ignored files, and the bundles carried.
# Counted as the device tool counts: in whole blocks of the file system (du).
report_size() {
  local root=$1 bundle=$2 xvfb=$3 library=$4 tree main extra apart
  tree=$(git -C "$root" ls-files -z -co --exclude-standard | (cd "$root" && du -c -B1 --files0-from=- 2>/dev/null) |
    tail -1 | cut -f1)
  main=$(du -sB1 "$bundle" | cut -f1)
  extra=$(du -sB1 "$xvfb" | cut -f1)
  apart=$(du -sB1 "$library" | cut -f1)
  echo "prepare: $bundle holds $((main / 1048576)) MiB, $xvfb $((extra / 1048576)) MiB, $library" \
    "$((apart / 1048576)) MiB, the working tree $((tree / 1048576)) MiB (64 MiB travel a call)"
  [ $((main + tree)) -le $CARRY_LIMIT_BYTES ] && [ $((extra + tree)) -le $CARRY_LIMIT_BYTES ] &&
    [ $((apart + tree)) -le $CARRY_LIMIT_BYTES ] ||
    die "a bundle is over the device tool's 64 MiB: trim the libraries or Xvfb"
  echo "prepare: four calls of one lease: carry [\"$LIBRARY_BUNDLE_NAME\"] (any command, e.g. true)," \
    "then [\"$BUNDLE_NAME\"] to stage, then [\"$XVFB_BUNDLE_NAME\"] to run, then to run one-process"
}

# The names, times and sizes of the files a commit would hold, hashed: a build's sources as found.
sources_fingerprint() {
  git -C "$1" ls-files -z -co --exclude-standard |
    (cd "$1" && xargs -0 stat -c '%n %Y %s' 2>/dev/null) | sha256sum
}

prepare() {
  cd "$(dirname "$0")/.." || die "no repository root"
  [ "$(uname -m)" = x86_64 ] || die "prepare builds for the device's x86-64; this machine is $(uname -m)"
  local root=$PWD build=$PWD/$BUILD_NAME bundle=$PWD/$BUNDLE_NAME xvfb=$PWD/$XVFB_BUNDLE_NAME
  tools/setup.sh || die "tools/setup.sh failed"
  mkdir -p "$bundle" "$xvfb"
  write_python_wrapper "$build/device-bin/python3"
  write_mpiexec_wrapper "$build/device-bin/mpiexec"
  echo "prepare: building $build"
  local sources
  sources=$(sources_fingerprint "$root")
  configure_and_build "$root" "$build"
  # A file edited while the build ran may be half in it: the device would test a draft.
  [ "$(sources_fingerprint "$root")" = "$sources" ] ||
    die "the sources changed while prepare built them; run prepare again"
  collect_libraries "$build"
  download_debs "$bundle/gl" "${GL_PACKAGES[@]}"
  pack_xvfb "$xvfb" "$build/device-debs/xvfb"
  mkdir -p "$root/$LIBRARY_BUNDLE_NAME"
  rm -rf "$xvfb/mpi"  # where earlier bundles kept it
  # Beside ICU's data: .devtest and .devtest-xvfb are nearly full.
  download_debs "$root/$LIBRARY_BUNDLE_NAME/mpi" "${MPI_PACKAGES[@]}"
  pack_tree "$root" "$build" "$bundle/tree.tar.xz" "$root/$LIBRARY_BUNDLE_NAME/library.tar.xz"
  cp "$0" "$bundle/device_test.sh"
  {
    echo "SOURCE_DIR=$root"
    echo "BINARY_DIR=$build"
    echo "CMAKE_HERE=$(command -v cmake)"
    echo "COMMIT=$(git -C "$root" describe --always --dirty)"
    echo "PREPARED='$(date -u '+%Y-%m-%d %H:%M UTC')'"
  } >"$bundle/manifest"
  report_size "$root" "$bundle" "$xvfb" "$root/$LIBRARY_BUNDLE_NAME"
  echo "prepare: done"
}

# ---------------------------------------------------------------------------------------------
# There: run

# Seconds left before the call's end (the device tool stops a command at 600 s), less a margin for
# packing the results; at least 10.
budget() {
  local wanted=$1 left=$((DEADLINE - SECONDS - 30))
  [ "$left" -lt "$wanted" ] && wanted=$left
  [ "$wanted" -lt 10 ] && wanted=10
  echo "$wanted"
}

# glvnd's loaders where the machine has none (the device), and NVIDIA's EGL vendor where it exists.
install_loaders() {
  local loader missing=""
  for loader in libEGL.so.1 libOpenGL.so.0 libGL.so.1 libGLX.so.0 libGLdispatch.so.0; do
    ldconfig -p | grep -q "^[[:space:]]*$loader " || missing+=" $loader"
  done
  if [ -n "$missing" ]; then
    echo "installing the glvnd loaders (missing:$missing)"
    for deb in "$BUNDLE_DIR"/gl/*.deb; do dpkg -x "$deb" / || die "could not unpack $deb"; done
    ldconfig
  fi
  local vendor=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  [ -f "$vendor" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$vendor
  if command -v nvidia-smi >/dev/null; then
    ON_NVIDIA=1
    GLX_VENDOR=nvidia  # glvnd then loads NVIDIA's GLX or fails: no quiet fallback to Mesa
  fi
}

# tar -J needs the xz program, which a bare machine may lack; Python's tarfile reads xz itself.
unpack() {
  if command -v xz >/dev/null; then
    tar -C "$2" -xJf "$1"
  else
    python3 -c 'import sys, tarfile
extra = {"filter": "fully_trusted"} if hasattr(tarfile, "fully_trusted_filter") else {}
tarfile.open(sys.argv[1]).extractall(sys.argv[2], **extra)' "$1" "$2"
  fi
}

# Unpacks a part of the bundles (`tree`, `library`, `xvfb`) with `how`, unless a `stage` call of
# this lease already did for this bundle; fails naming what to carry when neither happened.
unpack_part() {
  local part=$1 archive=$2 how=$3 stamp
  stamp="$part $COMMIT $PREPARED"
  if grep -qxF "$stamp" "$STAGED" 2>/dev/null; then
    echo "$part: staged by an earlier call of this lease"
  elif [ -f "$archive" ]; then
    "$how" "$archive" && echo "$stamp" >>"$STAGED"
  else
    die "no $archive and no $part staged: carry its bundle (see the head of this script)"
  fi
}

# Open MPI unpacked into MPI_PREFIX (the mpiexec wrapper runs it from there), once a lease.
# It travels in the library bundle, the first call's: `stage` and `run` install it.
install_mpi() {
  local debs=$BUNDLE_DIR/../$LIBRARY_BUNDLE_NAME/mpi
  [ -x "$MPI_PREFIX/usr/bin/mpiexec.openmpi" ] && return
  [ -d "$debs" ] || die "no $debs: carry the bundles tools/device_test.sh prepare made"
  mkdir -p "$MPI_PREFIX"
  for deb in "$debs"/*.deb; do dpkg -x "$deb" "$MPI_PREFIX" || die "could not unpack $deb"; done
  echo "installed Open MPI in $MPI_PREFIX: $("$BINARY_DIR/device-bin/mpiexec" --version | head -1)"
}

unpack_tree() {
  mkdir -p "$SCRATCH"
  unpack_part tree "$BUNDLE_DIR/tree.tar.xz" unpack_tree_archive
  unpack_part library "$BUNDLE_DIR/../$LIBRARY_BUNDLE_NAME/library.tar.xz" unpack_library_archive
  [ -x "$BINARY_DIR/nbody" ] || die "no $BINARY_DIR/nbody after unpacking"
}

unpack_library_archive() { unpack "$1" / || die "could not unpack $LIBRARY_APART"; }

unpack_tree_archive() {
  copy_checkout "$SOURCE_DIR" || die "could not copy the checkout to $SOURCE_DIR"
  unpack "$1" / || die "could not unpack the tree"
}

# The source tree where the build expects it: the checkout the device tool carried (the folder
# above this script's), less the bundles.
copy_checkout() {
  local checkout
  checkout=$(cd "$BUNDLE_DIR/.." && pwd)
  [ "$checkout" = "$1" ] && return 0
  mkdir -p "$1" &&
    tar -C "$checkout" --exclude="./$BUNDLE_NAME" --exclude="./$XVFB_BUNDLE_NAME" \
      --exclude="./$LIBRARY_BUNDLE_NAME" -cf - . | tar -C "$1" -xf -
}

unpack_xvfb_archive() {
  mkdir -p "$XVFB_PREFIX/bin"
  unpack "$1" "$XVFB_PREFIX" || die "could not unpack Xvfb"
}

# xvfb-run as the window tests call it (-a, -f FILE, -s "SERVER ARGUMENTS"): the carried Xvfb on a free
# display, GLX in the server from Mesa's swrast (without it Xvfb offers no GLX at all), and the
# command on GLX_VENDOR's GLX (NVIDIA's on the device: the window runs on the GPU).
install_xvfb() {
  unpack_part xvfb "$BUNDLE_DIR/../$XVFB_BUNDLE_NAME/xvfb.tar.xz" unpack_xvfb_archive
  # Xvfb runs xkbcomp from its compiled-in /usr/bin; -xkbdir moves only the keymap data.
  [ -x /usr/bin/xkbcomp ] || ln -s "$XVFB_PREFIX/usr/bin/xkbcomp" /usr/bin/xkbcomp
  local x=$XVFB_PREFIX libs=$XVFB_PREFIX/usr/lib/x86_64-linux-gnu:$XVFB_PREFIX/lib/x86_64-linux-gnu
  cat >"$x/bin/xvfb-run" <<EOF
#!/bin/bash
# Made by tools/device_test.sh: xvfb-run's -a, -f and -s on the carried Xvfb.
server="-screen 0 1280x1024x24"
while [ \$# -gt 0 ]; do
  case \$1 in
    -a|--auto-servernum) shift ;;
    -s) server=\$2; shift 2 ;;
    -f|--auth-file) shift 2 ;;  # the server takes any client (-ac)
    --server-args=*) server=\${1#*=}; shift ;;
    -*) echo "xvfb-run (device_test): unsupported option \$1" >&2; exit 2 ;;
    *) break ;;
  esac
done
log=\$(mktemp "$SCRATCH/xvfb-XXXXXX.log"); number=\$(mktemp)
LD_LIBRARY_PATH=$libs LIBGL_DRIVERS_PATH=$x/usr/lib/x86_64-linux-gnu/dri \\
  $x/usr/bin/Xvfb -displayfd 3 \$server -ac -nolisten tcp -xkbdir $x/usr/share/X11/xkb +extension GLX \\
  3>"\$number" >"\$log" 2>&1 &
xvfb=\$!
for _ in \$(seq 100); do [ -s "\$number" ] && break; kill -0 \$xvfb 2>/dev/null || break; sleep 0.1; done
[ -s "\$number" ] || { echo "xvfb-run (device_test): Xvfb did not start:" >&2; cat "\$log" >&2; exit 1; }
DISPLAY=:\$(cat "\$number") LD_LIBRARY_PATH=$BINARY_DIR/device-lib:$libs \\
  ${GLX_VENDOR:+__GLX_VENDOR_LIBRARY_NAME=$GLX_VENDOR} "\$@"
status=\$?
kill \$xvfb; wait \$xvfb 2>/dev/null
rm -f "\$number"
exit \$status
EOF
  chmod +x "$x/bin/xvfb-run"
  export PATH=$x/bin:$PATH
}

# The GPU, its driver and the renderer of the context the tests get (the gl test program prints it).
describe_gpu() {
  echo "== GPU"
  [ -n "$ON_NVIDIA" ] && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  GL_LINE=$(cd "$BINARY_DIR/tests" && ./nbody_gl_tests --gtest_filter='StateGuardTest.PutsBack*' | grep -m1 '^OpenGL: ')
  echo "${GL_LINE:-OpenGL: no context}"
  # Which EGL platforms answer (the context comes from the first that does): on the H200 the
  # tests' context was the surfaceless platform's, so the device platform had refused.
  local platform
  for platform in device surfaceless; do
    echo "EGL $platform platform: $(NBODY_EGL_PLATFORM=$platform "$BINARY_DIR/nbody" simulate --bodies 8 --steps 0 \
      -o /dev/null 2>&1 | tr '\n' ' ' | cut -c1-300)"
  done
  if [ -n "$ON_NVIDIA" ] && [[ $GL_LINE != *NVIDIA* ]]; then
    die "nvidia-smi sees a GPU but the tests' context is not NVIDIA's: ${GL_LINE:-none}"
  fi
}

run_ctest() {
  echo "== ctest: every test of every tier"
  local ctest
  ctest=$(command -v ctest || find / -xdev -maxdepth 6 -name ctest -type f -perm -u+x 2>/dev/null | head -1)
  [ -n "$ctest" ] || die "no ctest on this machine"
  # The ctest files call cmake by its path here (the layering test runs `cmake -P`): the cmake
  # beside the machine's ctest stands in for it.
  if [ ! -x "$CMAKE_HERE" ] && [ -x "$(dirname "$ctest")/cmake" ]; then
    mkdir -p "$(dirname "$CMAKE_HERE")" && ln -sf "$(dirname "$ctest")/cmake" "$CMAKE_HERE"
  fi
  # -LE readers|browser|compiler: h5dump, splash, h5py, yt, chromium and a compiler are Debian
  # packages the device does not have.
  timeout "$(budget 420)" "$ctest" --test-dir "$BINARY_DIR" --output-on-failure --parallel "$(nproc)" \
    --timeout 240 -LE "readers|browser|compiler" --output-junit "$OUT/ctest-junit.xml" 2>&1 | tee "$OUT/ctest.log"
  CTEST_STATUS=${PIPESTATUS[0]}
  # "99% tests passed, 3 tests failed out of 457", or with none failed "100% tests passed out of 457".
  CTEST_SUMMARY=$(grep -E '[0-9]+% tests passed(, [0-9]+ tests? failed)? out of [0-9]+' "$OUT/ctest.log" | tail -1)
  [ -n "$CTEST_SUMMARY" ] || CTEST_SUMMARY="ctest gave no summary (exit $CTEST_STATUS)"
}

# ctest runs each test in a process of its own; the issue's 11 failures showed with all GL tests
# in one process, where what one test leaves in the context meets the next. So once more, whole.
run_gl_tests_in_one_process() {
  echo "== the gl test program in one process"
  # Line-buffered, so that a run cut short by the time limit still leaves its log, each test's line
  # with its time (~310 s on the H200 at 0e32e3f, 413 tests).
  (cd "$BINARY_DIR/tests" && timeout "$(budget 540)" stdbuf -oL -eL ./nbody_gl_tests) \
    >"$OUT/gl_one_process.log" 2>&1
  ONE_PROCESS_STATUS=$?
  grep -E '^\[  (FAILED|PASSED)  \]|tests? ran' "$OUT/gl_one_process.log" | tail -15
  local passed ran failed
  passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\.$/\1/p' "$OUT/gl_one_process.log" | tail -1)
  # What ran less what passed (a run cut short prints no footer).
  ran=$(sed -n 's/^\[==========\] \([0-9]*\) tests\{0,1\} from .* ran\..*$/\1/p' "$OUT/gl_one_process.log" | tail -1)
  [ -n "$passed" ] && [ -n "$ran" ] && failed=$((ran - passed))
  if [ -n "$passed" ]; then
    ONE_PROCESS_RESULT="$passed passed, ${failed:-0} failed (exit $ONE_PROCESS_STATUS)"
  else
    ONE_PROCESS_RESULT="no result (exit $ONE_PROCESS_STATUS)"
  fi
}

# Every golden case drawn on this GPU and compared with llvmpipe's picture under the case's
# thresholds, passing or not: the pictures and figures assets/golden/cases.ini is set by.
shoot_goldens() {
  echo "== golden cases on this GPU against llvmpipe's pictures"
  local shots=$SCRATCH/golden-shots name shot thresholds
  mkdir -p "$shots"
  while IFS=$'\t' read -r name shot thresholds; do
    # shellcheck disable=SC2086  # the case's options are words
    "$BINARY_DIR/nbody" shot $shot --quiet --out "$shots/$name.png" 2>"$shots/$name.err" || {
      echo "$name: shot failed: $(cat "$shots/$name.err")"
      continue
    }
    # shellcheck disable=SC2086
    "$BINARY_DIR/nbody" compare "$SOURCE_DIR/assets/golden/$name.png" "$shots/$name.png" $thresholds \
      --diff "$shots/$name.diff.png" >"$shots/$name.compare" 2>&1
    echo "$name: $(tr '\n' ';' <"$shots/$name.compare")"
  done < <("$BINARY_DIR/device-bin/python3" - "$SOURCE_DIR/assets/golden/cases.ini" "${ON_NVIDIA:+nvidia}" <<'PY'
import configparser, sys
cases = configparser.ConfigParser(interpolation=None, delimiters=("=",))
cases.read(sys.argv[1])
own = "compare-" + sys.argv[2] if sys.argv[2] else "compare"  # as tests/gl/golden_image_test.cpp
for name in cases.sections():
    c = cases[name]
    print(name, " ".join(c["shot"].split()), " ".join(c.get(own, c["compare"]).split()), sep="\t")
PY
  )
}

# One command with NBODY_GL_DEBUG=1: its KHR_debug callback prints "GL error N: ..." for an error
# and "GL: ..." for any other message of high severity. Either, or a failed command, counts.
debug_run() {
  local name=$1 log=$SCRATCH/gl-debug/$1 status messages
  shift
  NBODY_GL_DEBUG=1 timeout "$(budget 120)" "$@" >"$log.out" 2>"$log.err"
  status=$?
  messages=$(grep -cE '^GL( error [0-9]+)?: ' "$log.err")
  if [ "$status" -ne 0 ] || [ "$messages" -ne 0 ]; then
    DEBUG_FAILURES+=("$name (exit $status, $messages GL messages)")
    echo "FAIL $name: exit $status, $messages GL error or high-severity messages:"
    grep -E '^GL( error [0-9]+)?: ' "$log.err" | sort | uniq -c | head -10
    [ "$status" -ne 0 ] && tail -3 "$log.err"
  else
    echo "ok   $name: $(grep -m1 -E 'renderer|window on| on ' "$log.err" | cut -c1-150)"
  fi
}

# Every command once. The window has no way to switch engines from the command line; the switch
# and a draw after it are GL tests (LiveSimulationTest.Switching*, PointSpriteRendererTest.
# DrawsAfterTheEngineThatSteppedLastIsDestroyed), which fail on any GL error.
run_commands_with_gl_debug() {
  echo "== every command once with NBODY_GL_DEBUG=1"
  local d=$SCRATCH/gl-debug nbody=$BINARY_DIR/nbody
  mkdir -p "$d"
  DEBUG_FAILURES=()
  for engine in fragment compute tree; do
    debug_run "simulate-$engine" "$nbody" simulate --engine "$engine" --method rk4 --bodies 4096 --steps 20 \
      --diagnostics "$d/simulate-$engine.csv" --diagnostics-every 5 -o "$d/simulate-$engine.nbody"
    debug_run "bench-$engine-readback" "$nbody" bench --engine "$engine" --method euler --bodies 16384 \
      --readback none,sync,async --repetitions 3
    debug_run "shot-$engine" "$nbody" shot --engine "$engine" --bodies 16384 --steps 5 --out "$d/shot-$engine.png"
    debug_run "run-$engine" xvfb-run -a -s "-screen 0 1280x800x24" "$nbody" run --engine "$engine" \
      --bodies 16384 --frames 60 --no-vsync --print-stats --overlays all --screenshot "$d/run-$engine.png"
  done
  debug_run "run-cpu" xvfb-run -a -s "-screen 0 1280x800x24" "$nbody" run --engine cpu --bodies 1024 \
    --frames 10 --print-stats --screenshot "$d/run-cpu.png"
  debug_run "run-load-snapshot" xvfb-run -a -s "-screen 0 1280x800x24" "$nbody" run --load "$d/simulate-compute.nbody" \
    --frames 10 --print-stats
  # The three simulate outputs as a series: the window plays it with the panel's series controls
  # drawn, record films it.
  debug_run "run-play-series" xvfb-run -a -s "-screen 0 1280x800x24" "$nbody" run --play "$d/simulate-*.nbody" \
    --play-rate 30 --frames 30 --print-stats
  debug_run "record-play-series" "$nbody" record --play "$d/simulate-*.nbody" --frames 30 --width 640 --height 360 \
    --out "$d/record-play.mp4"
  debug_run "shot-components" "$nbody" shot --scene galaxies --bodies 16384 --steps 5 --color-by component \
    --hide-components 2 --overlays all --out "$d/shot-components.png"
  debug_run "shot-cells" "$nbody" shot --engine tree --bodies 65536 --steps 5 --overlays cells --cell-depth 4 \
    --out "$d/shot-cells.png"
  debug_run "shot-density" "$nbody" shot --engine tree --scene galaxies --bodies 65536 --steps 5 --show density \
    --overlays all --out "$d/shot-density.png"
  debug_run "run-density" xvfb-run -a -s "-screen 0 1280x800x24" "$nbody" run --engine compute --bodies 16384 \
    --frames 30 --show density --overlays colorbar --print-stats --screenshot "$d/run-density.png"
  debug_run "shot-log-speed" "$nbody" shot --engine compute --bodies 16384 --steps 5 --color-scale log \
    --out "$d/shot-log-speed.png"
  debug_run "shot-energy" "$nbody" shot --engine tree --scene galaxies --bodies 65536 --steps 5 --color-by energy \
    --overlays colorbar --out "$d/shot-energy.png"
  debug_run "run-density-colours" xvfb-run -a -s "-screen 0 1280x800x24" "$nbody" run --engine compute --bodies 16384 \
    --frames 30 --color-by density --color-scale log --histogram energy --print-stats --screenshot "$d/run-density-colours.png"
  debug_run "accuracy-tree" "$nbody" accuracy --engine tree --bodies 65536 --json "$d/accuracy.json"
  debug_run "record-compute" "$nbody" record --engine compute --bodies 16384 --frames 60 --width 640 --height 360 \
    --trails 0.01 --overlays all --select 1,2,3 --out "$d/record.mp4"
  debug_run "bench-default" "$nbody" bench --repetitions 3
  debug_run "compare" "$nbody" compare "$d/shot-fragment.png" "$d/shot-compute.png" --max-delta 255
  debug_run "engines" "$nbody" engines
  for engine in fragment compute tree; do
    debug_run "ranks-4-$engine" "$BINARY_DIR/device-bin/mpiexec" -n 4 "$nbody" simulate --engine "$engine" \
      --method rk4 --bodies 65536 --steps 5 -o "$d/ranks-$engine.nbody"
  done
}

# The distributed tests' outcome in ctest's log: "N of M passed" (RanksGiveTheBitsOfOne runs 1, 2, 3
# and 4 ranks for every GPU engine and method).
distributed_summary() {
  local passed total
  local pattern='Ranks|RankFailures|UnderMpiexec|Decomposed'
  total=$(grep -cE "Test +#[0-9]+: .*($pattern)" "$OUT/ctest.log" 2>/dev/null)
  passed=$(grep -E "Test +#[0-9]+: .*($pattern).* Passed" "$OUT/ctest.log" 2>/dev/null | wc -l)
  echo "$passed of $total tests passed"
}

# At most 8 files come back: the logs as they are, everything else in one tar.
pack_results() {
  [ -d "$BINARY_DIR/golden-failures" ] && cp -r "$BINARY_DIR/golden-failures" "$SCRATCH/"
  tar -C "$SCRATCH" --exclude='xvfb-*.log' -cf "$OUT/results.tar" . 2>/dev/null
  tar -C "$SCRATCH" -rf "$OUT/results.tar" --wildcards 'xvfb-*.log' 2>/dev/null
  echo "results: $(tar -tf "$OUT/results.tar" | wc -l) files in results.tar"
}

summarize() {
  local status=0
  echo "== device_test summary ($COMMIT, prepared $PREPARED)"
  [ -n "$ON_NVIDIA" ] && echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
  echo "${GL_LINE:-OpenGL: none}"
  echo "gl test program in one process: the next call (device_test.sh one-process)"
  if [ ${#DEBUG_FAILURES[@]} -eq 0 ]; then
    echo "NBODY_GL_DEBUG=1: every command ran with no GL error and no high-severity message"
  else
    echo "NBODY_GL_DEBUG=1: FAILED: ${DEBUG_FAILURES[*]}"
    status=1
  fi
  [ "$CTEST_STATUS" -eq 0 ] || status=1
  echo "distributed (mpiexec, 1-4 ranks sharing this GPU; the bits of one process): $(distributed_summary)"
  echo "$CTEST_SUMMARY"
  return $status
}

# What every mode there needs first: the bundle's manifest, the output folder, the log.
begin_there() {
  BUNDLE_DIR=$(cd "$(dirname "$0")" && pwd)
  # shellcheck source=/dev/null
  source "$BUNDLE_DIR/manifest" || die "no manifest in $BUNDLE_DIR: run tools/device_test.sh prepare here first"
  OUT=${OUT:-/tmp/device_test_out}
  SCRATCH=/tmp/device_test
  DEADLINE=$((SECONDS + ${DEVICE_TEST_SECONDS:-570}))
  ON_NVIDIA="" GLX_VENDOR="" CTEST_STATUS=1 ONE_PROCESS_STATUS=1 DEBUG_FAILURES=()
  ONE_PROCESS_RESULT="not run" CTEST_SUMMARY="ctest not run"
  mkdir -p "$OUT"
  # A call the device tool cut short leaves its processes running on a warm machine, and their
  # GPU work slows or corrupts what runs next: none of this build's may run now.
  pkill -KILL -f "^[^ ]*$BINARY_DIR/" 2>/dev/null && sleep 1
  exec > >(tee -a "$OUT/device_test.log") 2>&1
  echo "device_test $1: $COMMIT (prepared $PREPARED) on $(hostname), $(nproc) cores"
  install_loaders
}

# The parts .devtest carries, unpacked for a later `run` in the same lease (and for other work).
stage_there() {
  begin_there stage
  unpack_tree
  install_mpi
  [ -f "$BUNDLE_DIR/../$XVFB_BUNDLE_NAME/xvfb.tar.xz" ] && install_xvfb
  echo "device_test stage: done; $BINARY_DIR/nbody is ready"
}

run_there() {
  begin_there run
  unpack_tree
  install_mpi
  install_xvfb
  describe_gpu
  run_ctest
  shoot_goldens
  run_commands_with_gl_debug
  pack_results
  summarize
}

# The fourth call: the gl test program in one process, on what `stage` and `run` installed.
one_process_there() {
  begin_there one-process
  unpack_tree
  install_mpi
  install_xvfb
  run_gl_tests_in_one_process
  echo "== device_test one-process summary ($COMMIT, prepared $PREPARED)"
  echo "gl test program in one process: $ONE_PROCESS_RESULT"
  [ "$ONE_PROCESS_STATUS" -eq 0 ]
}

# Step 2 on this machine (llvmpipe): the bundle in a scratch folder as the device's working tree,
# and a private mount namespace in which empty folders hide this checkout and /opt, so the tree and
# Xvfb are unpacked afresh where the device unpacks them.
rehearse() {
  local root bundle stage
  root=$(cd "$(dirname "$0")/.." && pwd)
  bundle=$root/$BUNDLE_NAME
  [ -f "$bundle/manifest" ] || die "no $bundle/manifest: run tools/device_test.sh prepare first"
  stage=$(mktemp -d)
  git -C "$root" ls-files -z -co --exclude-standard | tar -C "$root" --null -T - -cf - | tar -C "$stage" -xf -
  cp -r "$bundle" "$root/$XVFB_BUNDLE_NAME" "$root/$LIBRARY_BUNDLE_NAME" "$stage/"
  # shellcheck source=/dev/null
  source "$bundle/manifest"
  unshare -m --propagation private bash -c \
    "mount -t tmpfs none '$SOURCE_DIR' && mount -t tmpfs none /opt && cd '$stage' &&
     OUT='${OUT:-$stage/out}' bash $BUNDLE_NAME/device_test.sh run; ran=\$?;
     OUT='${OUT:-$stage/out}' bash $BUNDLE_NAME/device_test.sh one-process && exit \$ran"
  local status=$?
  echo "rehearse: results in ${OUT:-$stage/out}"
  return $status
}

case ${1:-} in
  prepare) prepare ;;
  stage) stage_there ;;
  run) run_there ;;
  one-process) one_process_there ;;
  rehearse) rehearse ;;
  *) die "usage: tools/device_test.sh prepare | rehearse (here); bash $BUNDLE_NAME/device_test.sh stage | run | one-process (on the device)" ;;
esac
