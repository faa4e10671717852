#!/usr/bin/env bash
# The Jetson Nano's own configuration (JetPack 4.6: CUDA 10.2, sm_53, GCC 7,
# CMake 3.10, aarch64, glibc 2.27, libjpeg-turbo 1.5.2, libpng 1.6.34), as
# closely as Debian's and PyPI's registries allow on an x86-64 machine:
#
#   tools        CUDA 11.8 (Debian non-free: the newest that targets sm_53),
#                CMake 3.10.3 (PyPI wheel), GCC 9 (Debian bullseye: the oldest
#                packaged), aarch64 cross compiler, :arm64 libraries, qemu-user
#   cuda53       CMake 3.10 + GCC 9 (C11, warnings as errors) + CUDA 11.8 for
#                sm_53, -std=c++14: configure, build, every test (the GPU ones
#                skip); the CPU-only configuration is aarch64's below
#   resources    per kernel on sm_53 (registers, spills, shared memory) and the
#                occupancy of every launch shape on the Nano: no spill, all fit
#   instructions sm_53 instructions per output pixel of the fast grey kernels
#   aarch64      cross build, CPU only; under qemu-aarch64 the tests whose
#                answers an architecture can change
#   glibc        no function newer than glibc 2.27 called (aarch64 binaries)
#   api-levels   CUDA <= 10.2, libjpeg API <= 8, libpng <= 1.6.34
#
#   scripts/nano-check.sh [--update]     (--update rewrites benchmarks/nano/resources.md
#                                         and instructions.md)
#
# Needs root or sudo for apt-get.  Downloads (about 900 MB the first time)
# are kept in $JF_CACHE (default ~/.cache/jetfilter-ci, about 300 MB kept).
# Ends with "N passed, N failed"; exit 1 when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
src=$PWD
update=0
[ "${1:-}" = "--update" ] && update=1
cache=${JF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jetfilter-ci}
work=${JF_NANO_WORK:-$src/build-nano}
mkdir -p "$cache" "$work"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
passed=0 failed=0
declare -a report

step() { # name, description, function
  local name=$1 what=$2 fn=$3 t0=$SECONDS
  echo "== $name: $what"
  if ( "$fn" ) > "$work/$name.log" 2>&1; then
    passed=$((passed + 1)); report+=("PASS  $name ($((SECONDS - t0)) s): $what")
    echo "PASS $name"
  else
    failed=$((failed + 1)); report+=("FAIL  $name ($((SECONDS - t0)) s): $what; log $work/$name.log")
    echo "FAIL $name"; tail -30 "$work/$name.log"
  fi
}

# ---- tools ---------------------------------------------------------------------

# apt with a private source list: Debian non-free (CUDA) and bullseye (GCC 9),
# without touching the machine's own sources.
apt_private() {
  local dir=$cache/apt
  mkdir -p "$dir/lists/partial" "$dir/archives/partial"
  cat > "$dir/sources.list" <<EOF
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main contrib non-free
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bullseye main
EOF
  apt-get -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
          -o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir" -o Dir::Cache::archives="$dir/archives" \
          -o APT::Sandbox::User=root "$@"
}

# CUDA 11.8 arranged as a toolkit (bin, nvvm, include, lib64) from Debian's
# split packages, so nvcc finds its parts by its own nvcc.profile.
cuda_toolkit() {
  local c=$cache/cuda-11.8 r=$cache/cuda-debs/root
  [ -x "$c/bin/nvcc" ] && [ -x "$c/bin/nvdisasm" ] && return 0
  mkdir -p "$cache/cuda-debs" && (cd "$cache/cuda-debs" &&
    apt_private download nvidia-cuda-toolkit nvidia-cuda-dev libcudart11.0) || return 1
  rm -rf "$r" "$c" && mkdir -p "$r" "$c/bin" "$c/nvvm/bin" "$c/nvvm/libdevice" "$c/lib64" "$c/include"
  for d in "$cache"/cuda-debs/*.deb; do dpkg -x "$d" "$r" || return 1; done
  cp "$r/usr/lib/nvidia-cuda-toolkit/bin/nvcc" "$c/bin/"
  cp "$r/usr/lib/nvidia-cuda-toolkit/bin/cicc" "$c/nvvm/bin/"
  cp -r "$r/usr/lib/nvidia-cuda-toolkit/bin/crt" "$c/bin/"
  for t in ptxas fatbinary nvlink cudafe++ bin2c cuobjdump cu++filt nvdisasm; do cp "$r/usr/bin/$t" "$c/bin/"; done
  cp "$r/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc" "$c/nvvm/libdevice/"
  cp -r "$r/usr/include/." "$c/include/"
  for l in libcudart_static.a libcudadevrt.a libculibos.a libnppif_static.a libnppc_static.a; do
    cp "$r/usr/lib/x86_64-linux-gnu/$l" "$c/lib64/"
  done
  cat > "$c/bin/nvcc.profile" <<'EOF'
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:
PATH            += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
  rm -rf "$cache/cuda-debs"
}

gcc9() {
  local g=$cache/gcc-9
  [ -x "$g/usr/bin/gcc-9" ] && return 0
  mkdir -p "$cache/gcc-debs" && (cd "$cache/gcc-debs" &&
    apt_private download gcc-9/bullseye cpp-9/bullseye gcc-9-base/bullseye libgcc-9-dev/bullseye) || return 1
  rm -rf "$g" && mkdir -p "$g"
  for d in "$cache"/gcc-debs/*.deb; do dpkg -x "$d" "$g" || return 1; done
  rm -rf "$cache/gcc-debs"
}

cmake310() {
  local w=$cache/cmake-3.10.3
  [ -x "$w/cmake/data/bin/cmake" ] && return 0
  python3 -m pip --version > /dev/null 2>&1 || $sudo apt-get install -y -qq python3-pip > /dev/null
  rm -rf "$w" && mkdir -p "$w" &&
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.6 --abi cp36m \
      --platform manylinux1_x86_64 cmake==3.10.3 -d "$w" &&
  (cd "$w" && python3 -m zipfile -e cmake-3.10.3-*.whl . && chmod +x cmake/data/bin/*)
}

tools() {
  $sudo dpkg --add-architecture arm64 &&
  $sudo apt-get update -qq &&
  $sudo apt-get install -y -qq --no-install-recommends g++-11 qemu-user gcc-aarch64-linux-gnu \
      libc6-dev-arm64-cross libjpeg62-turbo-dev:arm64 libpng-dev:arm64 zlib1g-dev:arm64 \
      libjansson-dev:arm64 \
      libcmocka-dev:arm64 pkg-config > /dev/null &&
  apt_private update -qq && cuda_toolkit && gcc9 && cmake310 &&
  "$cache/cuda-11.8/bin/nvcc" --version | tail -1 &&
  "$cache/cmake-3.10.3/cmake/data/bin/cmake" --version | head -1 &&
  "$cache/gcc-9/usr/bin/gcc-9" --version | head -1 && qemu-aarch64 --version | head -1 && du -sh "$cache"
}

CMAKE310=$cache/cmake-3.10.3/cmake/data/bin/cmake
CTEST310=$cache/cmake-3.10.3/cmake/data/bin/ctest

# Configure (only what CMake 3.10 has), build, run every test.
build_and_test() { # dir, ctest, cmake args...
  local dir=$1 ctest=$2; shift 2
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" && "$@" "$src" && make -j"$(nproc)" &&
  "$ctest" --output-on-failure -j"$(nproc)"
}

# One build for the Nano's old tools together (it was three: CMake 3.10 CPU
# only, GCC 9 CPU only, CUDA 11.8; the same tests thrice took five minutes).
cuda_53() {
  build_and_test "$work/cuda53" "$CTEST310" env CC="$cache/gcc-9/usr/bin/gcc-9" "$CMAKE310" \
      -DCMAKE_C_FLAGS="-Werror" -DCMAKE_CUDA_COMPILER="$cache/cuda-11.8/bin/nvcc" \
      -DCMAKE_CUDA_HOST_COMPILER="$(command -v g++-11)" -DJETFILTER_CUDA_ARCHS=53 \
      -DCMAKE_CUDA_FLAGS="-std=c++14" &&
  grep -q '^JF_NPPIF:FILEPATH=/' CMakeCache.txt &&
  "$cache/cuda-11.8/bin/cuobjdump" --list-elf libjetfilter.a | grep sm_53 > /dev/null
}

resources() {
  local c=$cache/cuda-11.8 table=$work/resources.md
  g++ -O1 -I"$c/include" "$src/benchmarks/nano/occupancy.cpp" -o "$work/occupancy" &&
  "$c/bin/cuobjdump" --dump-resource-usage "$work/cuda53/libjetfilter.a" | "$c/bin/cu++filt" > "$work/resources.txt" &&
  {
    echo "# Kernels on the Jetson Nano (sm_53)"
    echo
    echo "Made by \`scripts/nano-check.sh --update\`: registers, spills and shared memory from"
    echo "CUDA 11.8's \`cuobjdump --dump-resource-usage\` of the sm_53 build, occupancy of each"
    echo "launch shape in \`launches.txt\` from \`cuda_occupancy.h\` with the Nano's figures"
    echo "(1 SM, 2048 threads, 64K registers and 64 KiB shared memory per SM; 32K registers"
    echo "and 48 KiB per block). Occupancy = resident threads / 2048."
    echo
    "$work/occupancy" "$work/resources.txt" "$src/benchmarks/nano/launches.txt"
  } > "$table"
  local rc=$?
  cat "$table"
  [ $update -eq 1 ] && cp "$table" "$src/benchmarks/nano/resources.md"
  if ! diff -q "$table" "$src/benchmarks/nano/resources.md" > /dev/null; then
    echo "note: benchmarks/nano/resources.md differs from this build; run scripts/nano-check.sh --update"
  fi
  return $rc
}

# Instructions per output pixel of the fast grey kernels (median, convolution), from the sm_53
# machine code (benchmarks/nano/instructions.md).
instructions() {
  local c=$cache/cuda-11.8 table=$work/instructions.md
  "$c/bin/cuobjdump" -sass "$work/cuda53/libjetfilter.a" | "$c/bin/cu++filt" |
    python3 "$src/scripts/nano-instructions.py" "$src/benchmarks/nano/launches.txt" > "$table" &&
  grep -q '^| `median_fast_video_kernel` | 3 | 8 |' "$table" &&
  grep -q '^| `median_fast_video_net_kernel<(int)5>` | 5 | 8 |' "$table" || return 1
  cat "$table"
  [ $update -eq 1 ] && cp "$table" "$src/benchmarks/nano/instructions.md"
  if ! diff -q "$table" "$src/benchmarks/nano/instructions.md" > /dev/null; then
    echo "note: benchmarks/nano/instructions.md differs from this build; run scripts/nano-check.sh --update"
  fi
  return 0
}

# Under qemu, the tests whose answers an architecture can change (arithmetic,
# char signedness, alignment, byte order): filters, codecs, metrics, the
# library and its options.  Those of processes, pipes, files and documents
# (CLI, safety, hostile files, shards, streams, schema, docs) run natively
# on every CI run; under qemu they took two of the step's five minutes.  A
# Jetson has no NVML (its meter is the INA3221), so its stand-in stays out.
ctest_aarch64() {
  ctest -E '^(test_cli|test_safety|test_hostile|test_shard|test_stream|test_schema|test_docs|test_power_nvml)$' "$@"
}

aarch64() {
  # no arm64 GStreamer here: the plugin's API level is checked apart (scripts/gst-api-level.sh)
  build_and_test "$work/aarch64" ctest_aarch64 cmake \
      -DCMAKE_TOOLCHAIN_FILE="$src/cmake/aarch64-linux-gnu.cmake" \
      -DJETFILTER_CUDA=OFF -DJETFILTER_GSTREAMER=OFF
}

glibc() {
  scripts/glibc-symbols.sh aarch64-linux-gnu-objdump "$work/aarch64/jetfilter" \
      "$work/aarch64/jetfilter-example" "$work/aarch64/tests/test_cli"
}

api_levels() { scripts/api-levels.sh; }

t0=$SECONDS
step tools "CUDA 11.8, CMake 3.10.3, GCC 9, aarch64 cross compiler and qemu" tools
step cuda53 "CMake 3.10.3 + GCC 9 -Werror + CUDA 11.8 sm_53, C++14: build, all tests, NPP found" cuda_53
step resources "sm_53 registers, spills, shared memory; every launch shape fits the Nano" resources
step instructions "sm_53 instructions per output pixel of the fast grey kernels" instructions
step aarch64 "aarch64 cross build, CPU only, the arithmetic and codec tests under qemu-aarch64" aarch64
step glibc "no function newer than glibc 2.27 called" glibc
step api-levels "CUDA <= 10.2, libjpeg API <= 8, libpng <= 1.6.34, Jansson <= 2.11" api_levels
echo
printf '%s\n' "${report[@]}"
echo "nano-check: $passed passed, $failed failed in $((SECONDS - t0)) s"
[ "$failed" -eq 0 ]
