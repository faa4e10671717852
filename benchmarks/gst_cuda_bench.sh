#!/usr/bin/env bash
# The element on frames in CUDA memory against system memory, on a GPU with
# GStreamer's nvcodec plugin: an H.264 stream decoded by NVDEC into CUDA
# memory (1080p NV12, STREAM), median k = 3 and 5 and Gaussian sigma 2:
#   DEC ! fakesink                                    (decoding alone)
#   DEC ! jetfilter ! fakesink                        (CUDA memory, frames stay on the GPU)
#   DEC ! jetfilter ! cudadownload ! fakesink         (CUDA memory, then to system memory)
#   DEC ! cudadownload ! jetfilter backend=cuda ! fakesink   (system memory)
# DEC = filesrc ! h264parse ! nvh264dec.  Frames a second from the wall
# time (best of 3), the element's own time a frame in CUDA memory (p50 and
# p99 from its debug log: mapping and launching; the kernels run on the
# GPU's queue while the next frame comes) and what it adds a frame to the
# pipeline beyond decoding alone.  Prints a markdown table.
#   benchmarks/gst_cuda_bench.sh PLUGIN_DIR STREAM [FRAMES]   (FRAMES: the stream's, 300 as
#                                                  scripts/gpu/gst-bundle.sh makes it)
set -uo pipefail
plugins=$1 stream=$2 n=${3:-300}
export GST_PLUGIN_PATH=$plugins GST_REGISTRY=$(mktemp -d)/registry.bin
t=$(mktemp -d)
dec="filesrc location=$stream ! h264parse ! nvh264dec"
source "$(dirname "$0")/wall.sh"
secs() { best_secs 3 "$t/err" "$@"; } # the best wall time of three runs
fps() { python3 -c "print('%.0f' % ($n / $1))"; }
added_ms() { python3 -c "print('%.3f' % (($1 - $2) * 1000 / $n))"; }
echo "$n frames of $(basename "$stream")"
echo
echo "| filter | decoding alone fps | CUDA memory fps | element a frame p50 / p99 ms | added a frame ms | CUDA memory + cudadownload fps | system memory fps |"
echo "|---|---|---|---|---|---|---|"
alone=$(secs "gst-launch-1.0 -q $dec ! fakesink sync=false")
for f in "median ksize=3" "median ksize=5" "gauss sigma=2"; do
  cuda=$(secs "gst-launch-1.0 -q $dec ! jetfilter filter=$f ! fakesink sync=false")
  down=$(secs "gst-launch-1.0 -q $dec ! jetfilter filter=$f ! cudadownload ! fakesink sync=false")
  sys=$(secs "gst-launch-1.0 -q $dec ! cudadownload ! jetfilter filter=$f backend=cuda ! fakesink sync=false")
  GST_DEBUG=jetfilter:6 GST_DEBUG_NO_COLOR=1 gst-launch-1.0 -q $dec ! jetfilter filter=${f%% *} ${f#* } ! \
      fakesink sync=false 2> "$t/log" > /dev/null
  read -r p50 p99 < <(grep -o 'frame [0-9]*: [0-9.]* ms' "$t/log" | awk '{print $3}' | sort -n |
                      awk '{a[NR]=$1} END {print a[int(NR*0.5)+1], a[int(NR*0.99)]}')
  grep -q "CUDA memory: the device's primary context" "$t/log" ||
    echo "note: the element had no CUDA context (frames went through host memory)" >> "$t/err"
  echo "| $f | $(fps "$alone") | $(fps "$cuda") | $p50 / $p99 | $(added_ms "$cuda" "$alone") | $(fps "$down") | $(fps "$sys") |"
done
[ -s "$t/err" ] && { echo "errors:"; head -5 "$t/err"; }
rm -rf "$t"
