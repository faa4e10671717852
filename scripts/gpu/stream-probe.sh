#!/usr/bin/env bash
# The k = 3 convolution as column strips through registers
# (benchmarks/stream_probe.cu, built here with this machine's nvcc for
# sm_90) against a copy of the same image, then the library's fast k = 3
# median (strips, median_fast_strip.cu) and convolution on the same sizes
# (jetfilter bench).  Carry build-gpu/jetfilter and build-gpu/lib.
#   scripts/gpu.sh stream-probe [WxH ...]   (default 7680x4320 3840x2160 1023x577 7x5)
set -u
export LD_LIBRARY_PATH=$PWD/build-gpu/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc -O3 -arch=sm_90 -o /tmp/stream_probe benchmarks/stream_probe.cu || exit 1
/tmp/stream_probe "$@" || exit 1
sizes=$(echo "${@:-7680x4320 3840x2160}" | tr ' ' '\n' | grep -v '^7x5$\|^1023x577$' | paste -sd, -)
[ -n "$sizes" ] && build-gpu/jetfilter bench --backend cuda -f median,conv -k 3 --size "$sizes" \
  --channels 1,3 --variant fast --reps 50 --warmup 3
