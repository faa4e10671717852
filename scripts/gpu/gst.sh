#!/usr/bin/env bash
# On the GPU machine: the GStreamer element with backend=cuda.  After
# scripts/gpu.sh build (with GStreamer here) and, for a machine without
# GStreamer, scripts/gpu.sh gst-bundle; carry build-gpu/jetfilter,
# build-gpu/tests/test_gst, build-gpu/gst-plugins and .device-carry/gst.
#   scripts/gpu.sh gst [OUTDIR]
# 1. test_gst on the GPU against the library's CPU result; 2. the pipeline
# test (gst-launch against jetfilter stream); 3. compute-sanitizer memcheck
# over test_gst; 4. benchmarks/gst_bench.sh with backend=cuda; 5. with
# GStreamer's nvcodec plugin (the machine's or the bundle's): frames in CUDA
# memory (cudaupload, nvh264dec ! jetfilter ! cudadownload) byte for byte
# as in system memory, memcheck over one such pipeline, and
# benchmarks/gst_cuda_bench.sh.
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
if gst-inspect-1.0 cudaupload > /dev/null 2>&1; then
  caps="video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1"
  src="videotestsrc num-buffers=30 pattern=smpte ! $caps"
  for f in "median ksize=3" "median ksize=5"; do
    gst-launch-1.0 -q $src ! cudaupload ! jetfilter filter=$f ! cudadownload ! filesink location=/tmp/jf-cuda.yuv &&
    gst-launch-1.0 -q $src ! jetfilter filter=$f backend=cuda ! filesink location=/tmp/jf-sys.yuv &&
    cmp /tmp/jf-cuda.yuv /tmp/jf-sys.yuv && echo "CUDA memory, $f: 30 frames as in system memory" ||
      { echo "CUDA memory, $f: FAILED"; rc=1; }
  done | tee "$dest/cuda_memory.txt"
  h264=$PWD/.device-carry/gst/testsrc.h264
  decoder=0 # NVDEC through nvh264dec, and a stream for it
  gst-inspect-1.0 nvh264dec > /dev/null 2>&1 && [ -f "$h264" ] && decoder=1
  if [ $decoder -eq 1 ]; then
    dec="filesrc location=$h264 ! h264parse ! nvh264dec"
    gst-launch-1.0 -q $dec ! jetfilter filter=median ksize=5 ! cudadownload ! filesink location=/tmp/jf-cuda.yuv &&
    gst-launch-1.0 -q $dec ! cudadownload ! jetfilter filter=median ksize=5 backend=cuda ! filesink location=/tmp/jf-sys.yuv &&
    cmp /tmp/jf-cuda.yuv /tmp/jf-sys.yuv && echo "nvh264dec ! jetfilter ! cudadownload: 300 frames as in system memory" ||
      { echo "nvh264dec ! jetfilter: FAILED"; rc=1; }
  else
    echo "nvh264dec: not registered here (no NVDEC library) or no stream"
  fi | tee -a "$dest/cuda_memory.txt"
  GST_DEBUG=jetfilter:5 timeout 300 compute-sanitizer --tool memcheck --leak-check full \
      gst-launch-1.0 -q $src ! cudaupload ! jetfilter filter=median ksize=5 ! cudadownload ! fakesink \
      > "$dest/sanitize_cuda_memory.log" 2>&1
  grep -E "ERROR SUMMARY" "$dest/sanitize_cuda_memory.log" | tail -1
  if [ $decoder -eq 1 ]; then
    benchmarks/gst_cuda_bench.sh $PWD/$b/gst-plugins "$h264" 300 > "$dest/bench_cuda_memory.txt" 2>&1 || rc=1
    cat "$dest/bench_cuda_memory.txt"
  fi
else
  echo "cudaupload: not registered (no nvcodec plugin or CUDA driver): CUDA memory not checked" | tee "$dest/cuda_memory.txt"
fi
exit $rc
