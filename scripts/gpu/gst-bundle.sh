#!/usr/bin/env bash
# Here, for a GPU machine without GStreamer: Debian's GStreamer (core, base,
# check, the few plugins the tests use; from gst-plugins-bad, nvcodec's
# cudaupload, cudadownload and nvh264dec and the H.264 parser, taken from
# its package without installing it) and the libraries they need beyond
# glibc, into .device-carry/gst (about 25 MB), with a short H.264 stream.  scripts/gpu.sh gst uses it
# when the machine has no GStreamer of its own.
#   scripts/gpu.sh gst-bundle
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.device-carry/gst
rm -rf "$out" && mkdir -p "$out/lib" "$out/plugins" "$out/bin"
arch=$(gcc -print-multiarch)
pdir=/usr/lib/$arch/gstreamer-1.0
cp /usr/bin/gst-launch-1.0 /usr/bin/gst-inspect-1.0 "$out/bin/"
cp /usr/lib/$arch/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner "$out/bin/"
for p in coreelements videotestsrc videoconvertscale videoconvert rawparse; do
  [ -f "$pdir/libgst$p.so" ] && cp "$pdir/libgst$p.so" "$out/plugins/"
done
bad=$(mktemp -d) && chmod 777 "$bad"
(cd "$bad" && apt-get download -qq gstreamer1.0-plugins-bad > /dev/null) && dpkg -x "$bad"/*.deb "$bad/x"
for p in nvcodec videoparsersbad; do
  cp "$bad/x/usr/lib/$arch/gstreamer-1.0/libgst$p.so" "$out/plugins/"
done
rm -rf "$bad"
# 10 s of 1080p H.264 (ffmpeg's test pattern), for nvh264dec ! jetfilter
ffmpeg -v error -y -f lavfi -i testsrc2=size=1920x1080:rate=30 -frames:v 300 -c:v libx264 -preset fast \
    -pix_fmt yuv420p -bsf:v h264_mp4toannexb "$out/testsrc.h264"
# every library they and the test need, but the C library's own (glibc)
for f in "$out"/bin/* "$out"/plugins/*.so build-gpu/tests/test_gst build-gpu/gst-plugins/libgstjetfilter.so; do
  [ -e "$f" ] || continue
  ldd "$f" | awk '/=> \//{print $3}' | grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libstdc\+\+|libgcc_s)\.so' |
    while read -r lib; do cp -Lu "$lib" "$out/lib/"; done
done
du -sh "$out"
