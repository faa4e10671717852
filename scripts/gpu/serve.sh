#!/usr/bin/env bash
# A process kept for batch after batch (jetfilter serve) against fresh processes and NVIDIA's Python stack
# in one run: 400 1080p and 100 4K JPEGs (jpeg-sets.inc), median k = 5,
# JPEG q92 out, -j 16, --no-sync (the baseline does not flush either).
#  1. checks: the nvJPEG tests of test_gpu, and under compute-sanitizer;
#     a folder of clean and damaged JPEGs through serve (each damaged file
#     refused, each clean one written, as by a fresh process);
#  2. fresh processes: `jetfilter denoise --codec auto`, 2 rounds a set;
#  3. one serve process: ROUNDS requests of each set and mode
#     (benchmarks/serve_rounds.py), nvidia-smi dmon beside them;
#  4. nvImageCodec + CV-CUDA (benchmarks/nvimgcodec_cvcuda.py), ROUNDS rounds
#     in one process, batches of 128 (4K: 32).
# Carry build-gpu/jetfilter, build-gpu/lib, build-gpu/tests/test_gpu and the
# peers (.device-carry/peers).
#   [SERVE_CHECKS=0] [SERVE_CPU=0] scripts/gpu.sh serve [ROUNDS]      (default 10;
#   SERVE_CHECKS=0 leaves out step 1, SERVE_CPU=0 the CPU path's rounds in step 3)
set -u
export LD_LIBRARY_PATH=$PWD/build-gpu/lib JF_SOURCE_DIR=$PWD
J=$PWD/build-gpu/jetfilter
rounds=${1:-10}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores: $(nproc)"
. "$(dirname "$0")/jpeg-sets.inc"
if [ "${SERVE_CHECKS:-1}" != 0 ]; then
echo "== 1. checks"
JF_REQUIRE_NVJPEG=1 JF_TEST_FILTER='test_nvjpeg*' build-gpu/tests/test_gpu 2>&1 | grep -E 'nvJPEG|OK|FAIL|PASSED'
JF_REQUIRE_NVJPEG=1 JF_TEST_FILTER='test_nvjpeg*' timeout 200 compute-sanitizer --tool memcheck --leak-check full \
    build-gpu/tests/test_gpu 2>&1 | grep -E 'SUMMARY|PASSED|FAILED'
t=$(mktemp -d)
python3 - "$t/clean" <<'PY'
import glob, os, sys, cv2, numpy as np
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
photos = [cv2.imread(f) for f in sorted(glob.glob("samples/images/*.jpg") + glob.glob("samples/images/*.png"))]
for i in range(20):
    im = np.roll(cv2.resize(photos[i % len(photos)], (1920, 1080), interpolation=cv2.INTER_CUBIC), 37 * i, axis=1)
    cv2.imwrite(os.path.join(out, "c%02d.jpg" % i), im, [cv2.IMWRITE_JPEG_QUALITY, 92, cv2.IMWRITE_JPEG_RST_INTERVAL, 16])
PY
python3 scripts/damage_jpegs.py "$t/bad" "$t"/clean/*.jpg > /dev/null
mkdir -p "$t/mixed" && cp "$t"/clean/*.jpg "$t"/bad/*.jpg "$t/mixed/"
$J denoise "$t/mixed" -o "$t/fresh" -k 5 --codec nvjpeg --quiet > /dev/null 2>&1
printf '%s\n' "[\"denoise\", \"$t/mixed\", \"-o\", \"$t/warm\", \"-k\", \"5\", \"--codec\", \"nvjpeg\", \"--quiet\"]" \
              "[\"denoise\", \"$t/mixed\", \"-o\", \"$t/warm2\", \"-k\", \"5\", \"--codec\", \"nvjpeg\", \"--quiet\"]" |
    $J serve 2> "$t/serve.err"
echo "damaged through serve: $(ls "$t/bad" | wc -l) damaged, $(ls "$t/clean" | wc -l) clean;" \
     "written $(ls "$t/warm" | wc -l) and $(ls "$t/warm2" | wc -l) (fresh process $(ls "$t/fresh" | wc -l));" \
     "refused with a message $(grep -c 'corrupt\|damaged\|JPEG' "$t/serve.err");" \
     "outputs the same as the fresh process's: $(diff -rq "$t/fresh" "$t/warm" > /dev/null && diff -rq "$t/fresh" "$t/warm2" > /dev/null && echo yes || echo NO)"
fi
make_set /tmp/in1080 1920x1080 20
make_set /tmp/in4k 3840x2160 5
echo "== 2. fresh processes, --codec auto"
fresh_rounds --codec auto
echo "== 3. one serve process, $rounds rounds"
nvidia-smi dmon -s u -d 1 > /tmp/dmon_serve.txt 2>&1 & dm=$!
python3 benchmarks/serve_rounds.py "$J" "$rounds" in1080:/tmp/in1080 in4k:/tmp/in4k -- \
    auto: nvjpeg:--codec,nvjpeg trust:--codec,nvjpeg,--trust-input $([ "${SERVE_CPU:-1}" != 0 ] && echo cpu:--codec,cpu) \
    -- -k 5 -j 16 --no-sync
kill $dm 2> /dev/null; wait $dm 2> /dev/null
echo "-- nvidia-smi dmon during the serve rounds"; cat /tmp/dmon_serve.txt
echo "== 4. baseline: nvImageCodec + CV-CUDA (benchmarks/nvimgcodec_cvcuda.py)"
mkdir -p /tmp/site; for f in .device-carry/peers/*.tar.xz; do [ -e "$f" ] && tar -xJf "$f" -C /tmp/site; done
export PYTHONPATH=/tmp/site
nvidia-smi dmon -s u -d 1 > /tmp/dmon_base.txt 2>&1 & dm=$!
TIMEFORMAT='   process wall %R s'
echo "-- 400 x 1080p, batch 128"; time python3 benchmarks/nvimgcodec_cvcuda.py /tmp/in1080 /tmp/o_b --batch 128 --rounds "$rounds"
echo "-- 100 x 4K, batch 32"; time python3 benchmarks/nvimgcodec_cvcuda.py /tmp/in4k /tmp/o_b4 --batch 32 --rounds "$rounds"
kill $dm 2> /dev/null; wait $dm 2> /dev/null
echo "-- nvidia-smi dmon during the baseline"; cat /tmp/dmon_base.txt
