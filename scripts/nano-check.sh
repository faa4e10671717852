#!/usr/bin/env bash
# The Jetson Nano's own configuration (JetPack 4.6: CUDA 10.2, sm_53, GCC 7,
# CMake 3.10, aarch64, glibc 2.27, libjpeg-turbo 1.5.2, libpng 1.6.34), as
# closely as Debian's and PyPI's registries allow on an x86-64 machine:
#
#   tools        CUDA 11.8 (Debian non-free: the newest that targets sm_53),
#                CMake 3.10.3 (PyPI wheel), GCC 9 (Debian bullseye: the oldest
#                packaged), aarch64 cross compiler, :arm64 libraries, qemu-user
#   cuda53       CMake 3.10 + GCC 9 (C11, warnings as errors) + CUDA 11.8 for
#                sm_53, -std=c++14: configure, build, the library's tests (the GPU ones
#                skip; the long tables' quick sets); the CPU-only
#                configuration is aarch64's below
#   resources    per kernel on sm_53 (registers, spills, shared memory) and the
#                occupancy of every launch shape on the Nano: no spill, all fit
#   instructions sm_53 instructions per output pixel of the fast grey kernels
#   aarch64      cross build with GCC 11, CPU only; under qemu-aarch64 the
#                tests whose answers an architecture can change
#   glibc        no function newer than glibc 2.27 called (aarch64 binaries)
#   api-levels   CUDA <= 10.2, libjpeg API <= 8, libpng <= 1.6.34, libtiff <= 4.0.9,
#                libwebp <= 0.6.1, Jansson <= 2.11
#
#   scripts/nano-check.sh [--update]     (--update rewrites benchmarks/jetson/nano/
#                                         resources.md and instructions.md)
#
# Needs root or sudo for apt-get.  Downloads (about 900 MB the first time)
# are kept in $JF_CACHE (default ~/.cache/jetfilter-ci, about 300 MB kept).
# Ends with "N passed, N failed"; exit 1 when anything failed.
. "$(dirname "$0")/jetson-common.sh" nano "$@"

# GCC 9 from bullseye (GCC 7 is not packaged any more)
gcc9() {
  local g=$cache/gcc-9
  [ -x "$g/usr/bin/gcc-9" ] && return 0
  mkdir -p "$cache/gcc-debs" && (cd "$cache/gcc-debs" &&
    apt_private download gcc-9/bullseye cpp-9/bullseye gcc-9-base/bullseye libgcc-9-dev/bullseye) || return 1
  rm -rf "$g" && mkdir -p "$g"
  for d in "$cache"/gcc-debs/*.deb; do dpkg -x "$d" "$g" || return 1; done
  rm -rf "$cache/gcc-debs"
}

tools() {
  aarch64_tools && apt_private update -qq &&
  cuda_toolkit 11.8 bookworm libcudart11.0 && gcc9 && cmake_wheel 3.10.3 &&
  "$cache/cuda-11.8/bin/nvcc" --version | tail -1 &&
  "$cache/cmake-3.10.3/cmake/data/bin/cmake" --version | head -1 &&
  "$cache/gcc-9/usr/bin/gcc-9" --version | head -1 && qemu-aarch64 --version | head -1 && du -sh "$cache"
}

CMAKE310=$cache/cmake-3.10.3/cmake/data/bin/cmake
CTEST310=$cache/cmake-3.10.3/cmake/data/bin/ctest
ctest_nano() { ctest_board "$CTEST310" "$@"; }

# One build for the Nano's old tools together (it was three: CMake 3.10 CPU
# only, GCC 9 CPU only, CUDA 11.8; the same tests thrice took five minutes).
# CMake 3.10 takes no compiler launcher from the environment (CI's ccache):
# it is passed by name.
cuda_53() {
  build_and_test "$work/cuda53" ctest_nano env CC="$cache/gcc-9/usr/bin/gcc-9" "$CMAKE310" \
      -DCMAKE_C_FLAGS="-Werror" -DCMAKE_CUDA_COMPILER="$cache/cuda-11.8/bin/nvcc" \
      -DCMAKE_CUDA_HOST_COMPILER="$(command -v g++-11)" -DJETFILTER_CUDA_ARCHS=53 \
      -DCMAKE_CUDA_FLAGS="-std=c++14" -DJETFILTER_LIBDEFLATE=OFF \
      ${CMAKE_C_COMPILER_LAUNCHER:+-DCMAKE_C_COMPILER_LAUNCHER="$CMAKE_C_COMPILER_LAUNCHER"} \
      ${CMAKE_CUDA_COMPILER_LAUNCHER:+-DCMAKE_CUDA_COMPILER_LAUNCHER="$CMAKE_CUDA_COMPILER_LAUNCHER"} &&
  grep -q '^JF_NPPIF:FILEPATH=/' CMakeCache.txt &&
  "$cache/cuda-11.8/bin/cuobjdump" --list-elf libjetfilter.a | grep sm_53 > /dev/null
}

resources() { board_resources nano Nano 53 11.8 "$work/cuda53/libjetfilter.a"; }

instructions() {
  board_instructions nano 11.8 "$work/cuda53/libjetfilter.a" \
      '| `median_fast_video_kernel` | 3 | 8 |' '| `median_fast_video_net_kernel<(int)5>` | 5 | 8 |'
}

# the Orin's check runs the codec tests again, with libdeflate (Ubuntu
# 18.04 has none)
aarch64() { aarch64_build ctest_aarch64 -DJETFILTER_LIBDEFLATE=OFF; }

glibc() { aarch64_glibc 2.27; }

api_levels() { scripts/api-levels.sh; }

t0=$SECONDS
step tools "CUDA 11.8, CMake 3.10.3, GCC 9, aarch64 cross compiler and qemu" tools
step cuda53 "CMake 3.10.3 + GCC 9 -Werror + CUDA 11.8 sm_53, C++14: build, the library's tests, NPP found" cuda_53
step resources "sm_53 registers, spills, shared memory; every launch shape fits the Nano" resources
step instructions "sm_53 instructions per output pixel of the fast grey kernels" instructions
step aarch64 "aarch64 cross build with GCC 11 -Werror, CPU only, the arithmetic and codec tests under qemu-aarch64" aarch64
step glibc "no function newer than glibc 2.27 called" glibc
step api-levels "CUDA <= 10.2, libjpeg API <= 8, libpng <= 1.6.34, libtiff <= 4.0.9, libwebp <= 0.6.1, Jansson <= 2.11" api_levels
finish nano-check "$t0"
