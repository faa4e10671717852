#!/usr/bin/env bash
# Here, for the GPU machine: the Python extension linked with build-gpu/'s
# library (sm_90, static dependencies), in place in python/jetfilter/, and
# the peers (CV-CUDA, nvImageCodec) copied into .device-carry/peers.
#   scripts/gpu.sh python-build        (after scripts/gpu.sh build)
# Then carry: python/jetfilter/_jetfilter.abi3.so python/jetfilter/bin python/jetfilter/lib
# .device-carry/peers
set -euo pipefail
cd "$(dirname "$0")/../.."
b=${JF_GPU_BUILD:-build-gpu}
[ -f "$b/libjetfilter.a" ] || { echo "python-build: run scripts/gpu.sh build first"; exit 1; }
# Debian's libjpeg.a, libpng.a and libz.a are not position-independent, so
# the module links the shared ones: libpng16.so.16 and libz.so.1 are on the
# GPU machine (Ubuntu), Debian's libjpeg.so.62 and libjansson.so.4 (its
# libjansson.a is not position-independent either) are not and go beside
# the module (jetfilter/lib, found through the module's $ORIGIN rpath)
list=$(mktemp)
sed -e 's#.*/libjpeg\.a$#-ljpeg#' -e 's#.*/libpng[0-9]*\.a$#-lpng16#' -e 's#.*/libz\.a$#-lz#' \
    -e 's#.*/libjansson\.a$#-ljansson#' \
    "$b/jetfilter-link.txt" > "$list"
(cd python && rm -rf build && JETFILTER_BUILD_DIR="$PWD/../$b" JETFILTER_PREBUILT=1 JETFILTER_LINK_LIST="$list" \
   python3 setup.py -q build_ext --inplace) > "$b/python-build.log" 2>&1 || { cat "$b/python-build.log"; exit 1; }
mkdir -p python/jetfilter/lib
cp -L "$(ldconfig -p | awk '/libjpeg.so.62 /{print $NF; exit}')" python/jetfilter/lib/libjpeg.so.62
cp -L "$(ldconfig -p | awk '/libjansson.so.4 /{print $NF; exit}')" python/jetfilter/lib/libjansson.so.4
so=$(ls python/jetfilter/_jetfilter*.so)
extra=$(ldd "$so" | grep -vE 'linux-vdso|libc\.so|libm\.so|libstdc\+\+|libgcc_s|libdl|libpthread|librt|ld-linux|libpng16|libz\.so|jetfilter/lib/lib(jpeg|jansson)' || true)
[ -z "$extra" ] || { echo "python-build: $so links libraries the GPU machine lacks:"; echo "$extra"; exit 1; }
mkdir -p .device-carry/peers
cp -u ../shared/peers/*.tar.xz .device-carry/peers/ 2> /dev/null || true
du -shc "$so" python/jetfilter/bin python/jetfilter/lib .device-carry/peers | tail -1
