#!/usr/bin/env bash
# The GStreamer plugin from the outside:
#   tests/test_gst.sh JETFILTER PLUGIN_DIR SOURCE_DIR
# 1. gst-inspect-1.0 lists the element, and its properties are the
#    operation table's: every filter a value of `filter`, every parameter of
#    a filter a property (what `jetfilter info --json` lists);
# 2. gst-launch-1.0 videotestsrc ! jetfilter ! filesink, 60 frames of 4:2:0
#    at an odd size: the frames are what `jetfilter stream` makes of the same
#    raw frames (the same per-plane rule), byte for byte; so are 8 frames
#    of the camera-noise filters (nlmeans, bilateral, guided);
# 3. the plugin calls no GStreamer function newer than 1.14 (scripts/gst-api-level.sh).
# Hermetic: GStreamer sees the element and the two system plugins the test
# uses (coreelements, videotestsrc), not every plugin the machine has (a
# registry scan loads each one, and one that probes hardware can stall);
# every command is bounded by a timeout that names it.
set -uo pipefail
J=$1 plugins=$2 src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GST_PLUGIN_PATH=$plugins GST_REGISTRY=$work/registry.bin
if [ -z "${GST_PLUGIN_SYSTEM_PATH_1_0:-}" ]; then
  sysdir=$(pkg-config --variable=pluginsdir gstreamer-1.0 2>/dev/null || true)
  mkdir "$work/system"
  for p in coreelements videotestsrc; do
    [ -f "$sysdir/libgst$p.so" ] && ln -s "$sysdir/libgst$p.so" "$work/system/"
  done
  export GST_PLUGIN_SYSTEM_PATH_1_0=$work/system
fi
fail=0
no() { echo "FAIL: $*"; fail=1; }
# bounded: a stalled pipeline fails the test with its name instead of hanging it
bounded() {
  timeout -k 5 120 "$@"
  local rc=$?
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && echo "FAIL: timed out after 120 s: $*" >&2
  return $rc
}

inspect=$(bounded gst-inspect-1.0 jetfilter 2>&1) || no "gst-inspect-1.0 jetfilter: $inspect"
filters=$("$J" info --json - | python3 -c 'import json,sys; print(" ".join(json.load(sys.stdin)["operations"]))')
n=0
for op in $filters; do
  case $op in pad|psnr|ssim|salt-pepper|gaussian|estimate) continue ;; esac  # not filters
  grep -qE "\): $op +- $op\$" <<< "$inspect" || no "gst-inspect: filter value $op missing"
  n=$((n + 1))
done
[ $n -ge 9 ] || no "only $n filters in the table"
for prop in ksize sigma border variant max-ksize kernel block backend device planes stats; do
  grep -qE "^  $prop +:" <<< "$inspect" || no "gst-inspect: property $prop missing"
done
echo "gst: gst-inspect lists $n filters and every parameter"

w=168 h=98  # GStreamer pads I420 rows to 4 bytes and its height to 2; stream reads frames packed
bounded gst-launch-1.0 -q videotestsrc num-buffers=60 pattern=smpte ! video/x-raw,format=I420,width=$w,height=$h \
  ! filesink location="$work/in.yuv" || no "gst-launch of the raw frames"
bounded gst-launch-1.0 -q videotestsrc num-buffers=60 pattern=smpte ! video/x-raw,format=I420,width=$w,height=$h \
  ! jetfilter filter=median ksize=5 backend=${JF_GST_BACKEND:-cpu} ! filesink location="$work/out.yuv" || no "gst-launch with jetfilter"
"$J" stream --raw ${w}x$h --pix-fmt yuv420p -k 5 --backend cpu -i "$work/in.yuv" -o "$work/want.yuv" --quiet ||
  no "jetfilter stream"
[ -s "$work/out.yuv" ] && cmp -s "$work/out.yuv" "$work/want.yuv" || no "the element's frames differ from jetfilter stream's"
echo "gst: 60 frames of ${w}x$h I420 through videotestsrc ! jetfilter ! filesink, as jetfilter stream makes them"

# the camera-noise filters on video: their settings as properties, the same frames as stream's
bounded gst-launch-1.0 -q videotestsrc num-buffers=8 pattern=ball ! video/x-raw,format=I420,width=$w,height=$h \
  ! filesink location="$work/ball.yuv" || no "gst-launch of the ball frames"
for f in "nlmeans noise-sigma 12" "bilateral sigma-color 20" "guided eps 100"; do
  set -- $f
  bounded gst-launch-1.0 -q videotestsrc num-buffers=8 pattern=ball ! video/x-raw,format=I420,width=$w,height=$h \
    ! jetfilter filter=$1 $2=$3 backend=${JF_GST_BACKEND:-cpu} ! filesink location="$work/out.yuv" ||
    no "gst-launch with jetfilter filter=$1"
  # the same backend: these filters match the CPU within a tolerance, not bit for bit
  "$J" stream --raw ${w}x$h --pix-fmt yuv420p -f $1 --$2 $3 --backend ${JF_GST_BACKEND:-cpu} -i "$work/ball.yuv" \
    -o "$work/want.yuv" --quiet || no "jetfilter stream -f $1"
  cmp -s "$work/out.yuv" "$work/want.yuv" || no "filter=$1: the element's frames differ from jetfilter stream's"
  cmp -s "$work/out.yuv" "$work/ball.yuv" && no "filter=$1 $2=$3 changed nothing"
done
echo "gst: nlmeans, bilateral and guided through the element, as jetfilter stream makes them"

bounded gst-launch-1.0 -q videotestsrc num-buffers=3 ! video/x-raw,format=RGB,width=64,height=48 \
  ! jetfilter filter=conv backend=cpu ! fakesink > "$work/err.txt" 2>&1
case $? in
  0) no "conv without weights ran" ;;
  124 | 137) no "conv without weights: gst-launch did not end (the error must fail the state change)" ;;
esac
grep -q "weights" "$work/err.txt" || no "the error does not say what is missing: $(cat "$work/err.txt")"
grep -q "Failed to set pipeline to PAUSED" "$work/err.txt" ||
  no "settings that make no plan did not fail the state change: $(cat "$work/err.txt")"

# the release each GStreamer call came in, from the development files'
# introspection data (CI installs them; a machine with the runtime only,
# as the GPU machine, says so and goes on)
if [ -f /usr/share/gir-1.0/Gst-1.0.gir ]; then
  "$src/scripts/gst-api-level.sh" "$plugins/libgstjetfilter.so" 1.14 || fail=1
else
  echo "gst: the API level not checked here: no /usr/share/gir-1.0/Gst-1.0.gir (libgstreamer1.0-dev)"
fi
exit $fail
