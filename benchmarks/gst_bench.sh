#!/usr/bin/env bash
# The GStreamer element timed: 600 frames of 1920x1080 (I420 and GRAY8),
# median k = 3, 5, 11 and Gaussian sigma 2, through
#   videotestsrc ! jetfilter ! fakesink           (the element)
#   videotestsrc ! fdsink | jetfilter stream --raw | cat > /dev/null   (the pipe recipe, raw frames)
#   videotestsrc ! fakesink                       (the ceiling: making the frames)
#   videotestsrc ! gaussianblur ! fakesink        (GStreamer's own CPU blur, where installed)
# Frames a second from the wall time of each pipeline (best of 2), and the
# element's per-frame time p50/p99 from its debug log.  Prints a markdown table.
#   benchmarks/gst_bench.sh JETFILTER PLUGIN_DIR [BACKEND] [FRAMES]
set -uo pipefail
J=$1 plugins=$2 backend=${3:-auto} n=${4:-600}
export GST_PLUGIN_PATH=$plugins GST_REGISTRY=$(mktemp -d)/registry.bin
t=$(mktemp -d)
src="videotestsrc num-buffers=$n pattern=smpte"
source "$(dirname "$0")/wall.sh"
secs() { best_secs 2 "$t/err" "$@"; } # the best wall time of two runs
fps() { python3 -c "print('%.0f' % ($n / $1))"; }
echo "| format | filter | element fps | frame p50 ms | p99 ms | pipe recipe fps | videotestsrc alone fps | gaussianblur fps |"
echo "|---|---|---|---|---|---|---|---|"
for fmt in I420 GRAY8; do
  caps="video/x-raw,format=$fmt,width=1920,height=1080,framerate=30/1"
  pixfmt=$([ $fmt = I420 ] && echo yuv420p || echo gray)
  ceiling=$(secs "gst-launch-1.0 -q $src ! $caps ! fakesink sync=false")
  for f in "median ksize=3" "median ksize=5" "median ksize=11" "gauss sigma=2"; do
    name=${f// /:}
    el=$(secs "gst-launch-1.0 -q $src ! $caps ! jetfilter filter=$f backend=$backend ! fakesink sync=false")
    GST_DEBUG=jetfilter:6 GST_DEBUG_NO_COLOR=1 gst-launch-1.0 -q $src ! $caps ! jetfilter filter=${f%% *} \
        ${f#* } backend=$backend ! fakesink sync=false 2> "$t/log" > /dev/null
    read -r p50 p99 < <(grep -o 'frame [0-9]*: [0-9.]* ms' "$t/log" | awk '{print $3}' | sort -n |
                        awk '{a[NR]=$1} END {print a[int(NR*0.5)+1], a[int(NR*0.99)]}')
    opt=$(echo "${f#* }" | sed 's/ksize=/-k /; s/sigma=/--sigma /')
    pipe=$(secs "gst-launch-1.0 -q $src ! $caps ! fdsink fd=1 | $J stream --raw 1920x1080 --pix-fmt $pixfmt -f ${f%% *} $opt --backend $backend --quiet | cat > /dev/null")
    blur="-"
    if [ "${f%% *}" = gauss ] && gst-inspect-1.0 gaussianblur > /dev/null 2>&1 && [ $fmt = I420 ]; then
      blur=$(fps "$(secs "gst-launch-1.0 -q $src ! $caps ! videoconvert ! video/x-raw,format=AYUV ! gaussianblur sigma=2 ! fakesink sync=false")")
    fi
    echo "| $fmt | $f | $(fps "$el") | $p50 | $p99 | $(fps "$pipe") | $(fps "$ceiling") | $blur |"
  done
done
[ -s "$t/err" ] && { echo "errors:"; head -5 "$t/err"; }
rm -rf "$t"
