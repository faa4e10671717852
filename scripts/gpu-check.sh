#!/usr/bin/env bash
# Build here for a GPU machine that has the CUDA driver but not our build
# dependencies (e.g. Ubuntu 24.04 with a Hopper GPU and no -dev packages):
# sm_90 by default, libjpeg, libpng and zlib linked statically (distributions
# differ in sonames), cmocka copied beside the binaries.  Copy the source tree
# with build-gpu/ to that machine and run scripts/gpu-run.sh there.
#   scripts/gpu-check.sh [ARCH]      (default 90)
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-90}
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DJETFILTER_STATIC_DEPS=ON \
      -DJETFILTER_CUDA_ARCHS="$arch" > build-gpu.log 2>&1 || { cat build-gpu.log; exit 1; }
cmake --build build-gpu -j "$(nproc)" >> build-gpu.log 2>&1 || { cat build-gpu.log; exit 1; }
mkdir -p build-gpu/lib
cp -L "$(ldconfig -p | awk '/libcmocka.so.0 /{print $NF; exit}')" build-gpu/lib/libcmocka.so.0
# what scripts/gpu-npp-link.sh needs to relink the tool with NPP over there
cp build-gpu/CMakeFiles/jetfilter-cli.dir/cli/main.c.o build-gpu/cli_main.o
for a in libjpeg.a libpng16.a libz.a; do cp -L "/usr/lib/$(gcc -print-multiarch)/$a" build-gpu/lib/; done
for exe in jetfilter tests/test_gpu jetfilter-gpu-frames; do
  extra=$(ldd "build-gpu/$exe" | grep -vE 'linux-vdso|libc\.so|libm\.so|libstdc\+\+|libgcc_s|libdl|libpthread|librt|ld-linux|libcmocka' || true)
  [ -z "$extra" ] || { echo "gpu-check: $exe links libraries the GPU machine lacks:"; echo "$extra"; exit 1; }
done
# the carried folder must stay small: drop objects and test data copies
find build-gpu/CMakeFiles -name '*.o' -delete
du -sh build-gpu
cat <<CMD
gpu-check: built build-gpu/ for sm_$arch. On the GPU machine, with this tree and build-gpu/:

scripts/gpu-run.sh
CMD
