#!/usr/bin/env bash
# On the GPU machine: its CUDA toolkit has NPP but its OS has no libjpeg /
# libpng headers, so the build happens here in two halves.  scripts/gpu.sh build
# (on the build machine) leaves build-gpu/ with the library, the CLI as a static
# archive plus cli_main.o, and static libjpeg/libpng/zlib; this script compiles
# the NPP baseline with the local nvcc and links build-gpu/jetfilter-npp, the
# jetfilter tool with `bench` measuring NPP in the same run.
#   scripts/gpu.sh npp-link [ARCH]      (default 90)
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=${1:-90}
b=build-gpu
nvcc -O3 -std=c++14 -arch=sm_"$arch" -Iinclude -I. -DJF_HAVE_CUDA=1 \
     -c benchmarks/npp_baseline.cu -o $b/npp_baseline.o
nvcc -arch=sm_"$arch" -o $b/jetfilter-npp $b/cli_main.o $b/npp_baseline.o \
     $b/libjetfilter_cli.a $b/libjetfilter.a $b/lib/libdeflate.a $b/lib/libpng16.a $b/lib/libjpeg.a $b/lib/libz.a $b/lib/libjansson.a \
     -lnppif -lnppc -ldl -lpthread -lm
echo "gpu-npp-link: built $b/jetfilter-npp ($($b/jetfilter-npp --version))"
