#!/usr/bin/env bash
# Every CUDA, libjpeg, libpng, libtiff, libwebp and Jansson name the library
# and tool call must be in benchmarks/jetson/api-levels.txt with a version
# the Jetson Nano's JetPack 4.6 (Ubuntu 18.04) has: CUDA <= 10.2, libjpeg
# API <= 8 (libjpeg-turbo 1.5.2), libpng <= 1.6.34, libtiff <= 4.0.9,
# libwebp <= 0.6.1, Jansson <= 2.11; and libdeflate <= 1.10, the Orin's
# Ubuntu 22.04's (18.04 has none: the Nano's build leaves it out).
set -uo pipefail
cd "$(dirname "$0")/.."
table=benchmarks/jetson/api-levels.txt
files=$(git ls-files 'core/*' 'io/*' 'filters/*' 'pipeline/*' 'calib/*' 'jobs/*' 'benchmarks/*.c' 'benchmarks/*.cu' 'cli/*' 'samples/*.c' | grep -E '\.(c|h|cu|cuh)$')
newer() { # version, limit: is version > limit?
  [ "$1" = "6b" ] && return 1
  [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -1)" != "$2" ]
}
bad=0 checked=0
for kind in cuda jpeg png tiff webp deflate jansson; do
  case $kind in
    cuda) pattern='\bcuda[A-Z][A-Za-z0-9_]*|__ldg|__shfl[a-z_]*|__ballot[a-z_]*|__any_sync|__all_sync|__syncwarp|__activemask|__match[a-z_]*|__reduce[a-z_]*' limit=10.2 ;;
    jpeg) pattern='\bjpeg_[a-z_0-9]+\(|\btj[A-Z0-9][A-Za-z0-9_]*\(' limit=8 ;;
    png) pattern='\bpng_[a-zA-Z_0-9]+\(' limit=1.6.34 ;;
    tiff) pattern='\bTIFF[A-Z][A-Za-z0-9]*\(' limit=4.0.9 ;;
    deflate) pattern='\blibdeflate_[a-z_0-9]+\(' limit=1.10 ;;
    webp) pattern='\bWebP[A-Z][A-Za-z0-9]*\(|WebP(Config|BitstreamFeatures)::[a-z_]+' limit=0.6.1 ;;
    jansson) pattern='\bjson_(load|dumps|object_|array_|string_value|integer_value|number_value|equal|decref|is_)[a-z_]*|\bJSON_[A-Z_]+' limit=2.11 ;;
  esac
  for name in $(grep -ohE "$pattern" $files | tr -d '(' | sort -u); do
    case $name in png_io|png_read|png_start|png_end|png_chunk|png_file|png_prescan|png_decode|png_encode|png_scan|jpeg_file|jpeg_scan|jpeg_prescan|jpeg_decode|jpeg_encode) continue ;; esac
    since=$(awk -v k=$kind -v n="$name" '$1 == k && $2 == n { print $3 }' $table)
    checked=$((checked + 1))
    if [ -z "$since" ]; then
      echo "api-levels: $kind $name is not in $table (add it with the version that has it)"
      bad=$((bad + 1))
    elif newer "$since" "$limit"; then
      echo "api-levels: $kind $name needs $since; the Jetson Nano has $limit"
      bad=$((bad + 1))
    fi
  done
done
echo "api-levels: $checked names, $bad newer than the Nano's CUDA 10.2, libjpeg 8 API, libpng 1.6.34, libtiff 4.0.9, libwebp 0.6.1, Jansson 2.11 (libdeflate: the Orin's 1.10) or not listed"
[ "$bad" -eq 0 ]
