#!/usr/bin/env bash
# On the GPU machine: the camera-noise denoisers (non-local means,
# bilateral, guided) against the CPU in test_gpu, normal and under the
# Nano's limits, compute-sanitizer over those cases, and their speed against
# CV-CUDA's bilateral filter (benchmarks/denoise_gpu_bench.py).  Logs under $OUT.
#   scripts/gpu.sh denoise [tests|sanitize|bench|all] [OUTDIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
dest=${2:-${OUT:-/tmp/jf-gpu-denoise}}
mkdir -p "$dest" /tmp/site
export JF_SOURCE_DIR=$PWD LD_LIBRARY_PATH=$PWD/build-gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
b=${JF_GPU_BUILD:-build-gpu}
rc=0
if [ "$what" = tests ] || [ "$what" = all ]; then
  JF_TEST_FILTER=test_ops_table $b/tests/test_gpu > "$dest/denoise_tests.log" 2>&1 || rc=1
  JF_TEST_FILTER=test_ops_table JETFILTER_DEVICE_LIMITS=nano $b/tests/test_gpu --quick > "$dest/denoise_tests_nano.log" 2>&1 || rc=1
  grep -E "operation table|PASSED|FAILED|differs" "$dest"/denoise_tests*.log | head -20
fi
if [ "$what" = sanitize ] || [ "$what" = all ]; then
  for tool in memcheck racecheck; do
    JF_TEST_FILTER=test_ops_table timeout 540 compute-sanitizer --tool $tool --show-backtrace device \
        $b/tests/test_gpu --quick > "$dest/denoise_$tool.log" 2>&1 || rc=1
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$dest/denoise_$tool.log" | tail -1
  done
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  for f in .device-carry/peers/cvcuda*.tar.xz; do [ -e "$f" ] && tar -xJf "$f" -C /tmp/site; done
  PYTHONPATH=/tmp/site timeout 500 python3 benchmarks/denoise_gpu_bench.py --exe $b/jetfilter \
      --out "$dest/denoise_bench.json" > "$dest/denoise_bench.log" 2>&1 || rc=1
  tail -60 "$dest/denoise_bench.log"
fi
exit $rc
