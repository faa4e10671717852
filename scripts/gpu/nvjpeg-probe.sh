#!/usr/bin/env bash
# Where nvJPEG's hardware path spends its time (benchmarks/nvjpeg_probe.c:
# parsing, the batched engine decode at batch sizes 1-128, the GPU encoder
# on 1-16 threads) and the baseline NVIDIA Python script
# (benchmarks/nvimgcodec_cvcuda.py, batches of 32 and 128), over 400 1080p
# JPEGs made as scripts/gpu.sh nvjpeg makes them.  Carry build-gpu/jetfilter,
# build-gpu/lib and the peers (.device-carry/peers).
#   [PROBE_BESIDE=1] scripts/gpu.sh nvjpeg-probe [N]      (N files, default 400;
#   PROBE_BESIDE: the engine with CPU threads and encoders beside it too)
set -u
export LD_LIBRARY_PATH=$PWD/build-gpu/lib
J=$PWD/build-gpu/jetfilter
n=${1:-400}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
mkdir -p /tmp/src1080 /tmp/in1080 /tmp/site
[ -n "$(find /tmp/in1080 -name "*.jpg" 2>/dev/null | head -1)" ] || { rm -rf /tmp/in1080/*
  python3 scripts/make_1080p.py /tmp/src1080 1920x1080
  for s in $(seq 1 $(( (n + 19) / 20 ))); do $J noise /tmp/src1080 -o /tmp/in1080/s$s --salt-pepper 0.02 --seed $s --format same -j 16 --quiet; done; }
files=$(find /tmp/in1080 -name '*.jpg' | sort | head -n "$n")
[ -n "$files" ] || { echo "no inputs made under /tmp/in1080" >&2; exit 1; }
echo "inputs: $(echo "$files" | wc -l) x 1080p, $(echo "$files" | xargs du -cb | tail -1 | awk '{printf "%.0f KB/img", $1/1024/'"$n"'}')"
cc -O2 -o /tmp/nvjpeg_probe benchmarks/nvjpeg_probe.c -I/usr/local/cuda/include \
  -L/usr/local/cuda/lib64 -lnvjpeg -lcudart -lpthread || exit 1
echo "== nvjpeg_probe"; /tmp/nvjpeg_probe $files
echo "== baseline: nvImageCodec + CV-CUDA"
for f in .device-carry/peers/*.tar.xz; do [ -e "$f" ] && tar -xJf "$f" -C /tmp/site; done
export PYTHONPATH=/tmp/site
for b in 32 128; do python3 benchmarks/nvimgcodec_cvcuda.py /tmp/in1080 /tmp/o_base$b --batch $b; done
