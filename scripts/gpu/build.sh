#!/usr/bin/env bash
# Build here for a GPU machine that has the CUDA driver but not our build
# dependencies (e.g. Ubuntu 24.04 with a Hopper GPU and no -dev packages):
# sm_90 by default, libjpeg, libpng, zlib and Jansson linked statically (distributions
# differ in sonames), cmocka copied beside the binaries.  Copy the source tree
# with the build folder to that machine and run scripts/gpu.sh test there.
#   scripts/gpu.sh build [ARCH [DIR]]      (default 90, build-gpu)
# With JF_NVCC set (e.g. the CUDA 11.8 of scripts/nano-check.sh's cache) that
# compiler builds, with g++-11 as its host compiler: `JF_NVCC=... 
# scripts/gpu.sh build 53-virtual build-gpu53` makes the Nano's sm_53 code as
# PTX, which the driver of any newer GPU compiles at load time.
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$PWD
arch=${1:-90}
dir=${2:-build-gpu}
extra=()
if [ -n "${JF_NVCC:-}" ]; then
  extra=(-DCMAKE_CUDA_COMPILER="$JF_NVCC" -DCMAKE_CUDA_HOST_COMPILER="$(command -v g++-11)"
         -DCMAKE_CUDA_FLAGS=-std=c++14)
fi
mkdir -p "$dir"
(cd "$dir" && cmake "$src" -DCMAKE_BUILD_TYPE=Release -DJETFILTER_STATIC_DEPS=ON \
      -DJETFILTER_CUDA_ARCHS="$arch" -DJETFILTER_SHARED=OFF "${extra[@]}") > "$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
(cd "$dir" && cmake --build . -- -j"$(nproc)") >> "$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
mkdir -p $dir/lib
cp -L "$(ldconfig -p | awk '/libcmocka.so.0 /{print $NF; exit}')" $dir/lib/libcmocka.so.0
# what scripts/gpu.sh npp-link needs to relink the tool with NPP over there
cp $dir/CMakeFiles/jetfilter-cli.dir/cli/main.c.o $dir/cli_main.o
for a in libdeflate.a libjpeg.a libpng16.a libz.a libjansson.a; do cp -L "/usr/lib/$(gcc -print-multiarch)/$a" $dir/lib/; done
for exe in jetfilter tests/test_gpu tests/check_rows jetfilter-gpu-frames bench_jpeg_check; do
  extra=$(ldd "$dir/$exe" | grep -vE 'linux-vdso|libc\.so|libm\.so|libstdc\+\+|libgcc_s|libdl|libpthread|librt|ld-linux|libcmocka' || true)
  [ -z "$extra" ] || { echo "gpu-check: $exe links libraries the GPU machine lacks:"; echo "$extra"; exit 1; }
done
# the folder that travels stays small: only what runs there (the CPU tests run
# here); JF_GPU_KEEP=1 keeps the objects for a quick rebuild, and then only
# the paths that run there should travel (jetfilter, lib, tests/test_gpu, ...)
if [ "${JF_GPU_KEEP:-0}" != 1 ]; then
  rm -rf $dir/CMakeFiles $dir/bench_median_cpu $dir/jetfilter-example $dir/jetfilter-docs \
         $dir/jetfilter-launches $dir/bench_png $dir/doc $dir/libjetfilter.so*
  find $dir/tests -maxdepth 1 -type f -name 'test_*' ! -name test_gpu ! -name test_gst -delete
fi
du -sh $dir
cat <<CMD
gpu-check: built $dir/ for sm_$arch. On the GPU machine, with this tree and $dir/:

scripts/gpu.sh test   (or, for another folder: JF_GPU_BUILD=$dir scripts/gpu.sh test)
CMD
