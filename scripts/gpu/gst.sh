#!/usr/bin/env bash
# On the GPU machine: the GStreamer element with backend=cuda.  After
# scripts/gpu.sh build (with GStreamer here) and, for a machine without
# GStreamer, scripts/gpu.sh gst-bundle; carry build-gpu/jetfilter,
# build-gpu/tests/test_gst, build-gpu/gst-plugins and .device-carry/gst.
#   scripts/gpu.sh gst [OUTDIR]
# 1. test_gst on the GPU against the library's CPU result; 2. the pipeline
# test (gst-launch against jetfilter stream); 3. compute-sanitizer memcheck
# over test_gst; 4. benchmarks/gst_bench.sh with backend=cuda.
set -u
cd "$(dirname "$0")/../.."
dest=${1:-${OUT:-/tmp/jf-gpu-gst}}
mkdir -p "$dest"
b=${JF_GPU_BUILD:-build-gpu}
if ! command -v gst-launch-1.0 > /dev/null; then
  g=$PWD/.device-carry/gst
  export PATH=$g/bin:$PATH LD_LIBRARY_PATH=$g/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export GST_PLUGIN_SYSTEM_PATH_1_0=$g/plugins GST_PLUGIN_SCANNER_1_0=$g/bin/gst-plugin-scanner
  echo "GStreamer: carried (Debian's $(gst-launch-1.0 --version | head -1))" | tee "$dest/gst.txt"
else
  echo "GStreamer: the machine's ($(gst-launch-1.0 --version | head -1))" | tee "$dest/gst.txt"
fi
export GST_PLUGIN_PATH=$PWD/$b/gst-plugins GST_REGISTRY=/tmp/jf-gst-registry.bin JF_SOURCE_DIR=$PWD
rc=0
JF_GST_BACKEND=cuda $b/tests/test_gst > "$dest/test_gst.log" 2>&1 || rc=1
tail -3 "$dest/test_gst.log"
JF_GST_BACKEND=cuda bash tests/test_gst.sh $b/jetfilter $b/gst-plugins . > "$dest/test_gst_sh.log" 2>&1 || rc=1
tail -3 "$dest/test_gst_sh.log"
JF_GST_BACKEND=cuda timeout 300 compute-sanitizer --tool memcheck --leak-check full $b/tests/test_gst \
    > "$dest/sanitize.log" 2>&1
grep -E "ERROR SUMMARY|PASSED|FAILED" "$dest/sanitize.log" | tail -2
benchmarks/gst_bench.sh $PWD/$b/jetfilter $PWD/$b/gst-plugins cuda 600 > "$dest/bench.txt" 2>&1 || rc=1
cat "$dest/bench.txt"
exit $rc
