#!/usr/bin/env bash
# The Jetson Orin family's configuration (JetPack 6: CUDA 12.2-12.6, sm_87,
# Ubuntu 22.04 with GCC 11, CMake 3.22, glibc 2.35, Python 3.10, GStreamer
# 1.20), as closely as Debian's and PyPI's registries allow on an x86-64
# machine:
#
#   tools        CUDA 12.4 (Debian trixie non-free: the only CUDA 12 packaged),
#                CMake 3.22.1 (PyPI wheel), GCC 11 (Debian), the aarch64
#                GCC 11 cross compiler, :arm64 libraries, qemu-user
#   cuda87       CMake 3.22 + GCC 11 (C11, warnings as errors) + CUDA 12.4 for
#                sm_87, C++17: configure, build (the GStreamer element
#                included), the library's tests (the GPU ones skip; the long tables'
#                quick sets), NPP found; the
#                Python package built with GCC 11 against that build and its
#                tests run
#   resources    per kernel on sm_87 (registers, spills, shared memory) and the
#                occupancy of every launch shape on the Orin Nano: no spill,
#                all fit
#   instructions sm_87 instructions per output pixel of the fast grey kernels
#                and the 1080p frame they predict in the Orin Nano's modes
#   aarch64      cross build with GCC 11, CPU only, warnings as errors; under
#                qemu-aarch64 the codec tests, libdeflate being on here (the
#                other tests whose answers an architecture can change run
#                in scripts/nano-check.sh, built with the same GCC 11)
#   levels       no glibc function newer than 2.35 (aarch64 binaries), no
#                GStreamer function newer than 1.20 (the element)
#
#   scripts/orin-check.sh [--update]     (--update rewrites benchmarks/jetson/orin/
#                                         resources.md and instructions.md)
#
# Python 3.10 is not packaged by either registry: the package is built for
# CPython's limited API of 3.6 (one binary for 3.6 and later) and tested on
# Debian's 3.11.  Needs root or sudo for apt-get.  Downloads (about 1.1 GB
# the first time) are kept in $JF_CACHE (default ~/.cache/jetfilter-ci,
# about 400 MB kept).  Ends with "N passed, N failed"; exit 1 when anything
# failed.
. "$(dirname "$0")/jetson-common.sh" orin "$@"

CUDA=$cache/cuda-12.4
CMAKE322=$cache/cmake-3.22.1/cmake/data/bin/cmake
CTEST322=$cache/cmake-3.22.1/cmake/data/bin/ctest
ctest_orin() { ctest_board "$CTEST322" "$@"; }

tools() {
  aarch64_tools gcc-11 && apt_private update -qq &&
  cuda_toolkit 12.4 trixie libcudart12 && cmake_wheel 3.22.1 &&
  "$CUDA/bin/nvcc" --version | tail -1 && "$CMAKE322" --version | head -1 &&
  gcc-11 --version | head -1 && aarch64-linux-gnu-gcc-11 --version | head -1 && du -sh "$cache"
}

cuda_87() {
  build_and_test "$work/cuda87" ctest_orin env CC=gcc-11 "$CMAKE322" \
      -DCMAKE_C_FLAGS="-Werror" -DCMAKE_CUDA_COMPILER="$CUDA/bin/nvcc" \
      -DCMAKE_CUDA_HOST_COMPILER="$(command -v g++-11)" -DJETFILTER_CUDA_ARCHS=87 \
      -DCMAKE_CUDA_FLAGS="-std=c++17" &&
  grep -q '^JF_NPPIF:FILEPATH=/' CMakeCache.txt &&
  [ -f gst-plugins/libgstjetfilter.so ] &&
  "$CUDA/bin/cuobjdump" --list-elf libjetfilter.a | grep sm_87 > /dev/null &&
  CC=gcc-11 "$src/scripts/python-test.sh" "$work/cuda87"
}

resources() { board_resources orin "Orin Nano" 87 12.4 "$work/cuda87/libjetfilter.a"; }

instructions() {
  board_instructions orin 12.4 "$work/cuda87/libjetfilter.a" \
      '| `median_fast_kernel3<(int)1,unsignedchar>` | 3 | 8 |' '| `conv_fast_kernel<(int)3,unsignedchar>` | 3 | 8 |'
}

aarch64() { aarch64_build ctest_aarch64_codecs; }

levels() {
  aarch64_glibc 2.35 && scripts/gst-api-level.sh "$work/cuda87/gst-plugins/libgstjetfilter.so" 1.20
}

t0=$SECONDS
step tools "CUDA 12.4, CMake 3.22.1, GCC 11, aarch64 GCC 11 cross compiler and qemu" tools
step cuda87 "CMake 3.22.1 + GCC 11 -Werror + CUDA 12.4 sm_87, C++17: build, the library's tests, NPP, element, Python" cuda_87
step resources "sm_87 registers, spills, shared memory; every launch shape fits the Orin Nano" resources
step instructions "sm_87 instructions per output pixel of the fast grey kernels" instructions
step aarch64 "aarch64 cross build with GCC 11 -Werror, CPU only, the codec tests under qemu-aarch64" aarch64
step levels "no glibc function newer than 2.35, no GStreamer function newer than 1.20" levels
finish orin-check "$t0"
