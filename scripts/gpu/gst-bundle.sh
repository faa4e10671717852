#!/usr/bin/env bash
# Here, for a GPU machine without GStreamer: Debian's GStreamer (core, base,
# check, the few plugins the tests use) and the libraries they need beyond
# glibc, into .device-carry/gst (about 15 MB).  scripts/gpu.sh gst uses it
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
# every library they and the test need, but the C library's own (glibc)
for f in "$out"/bin/* "$out"/plugins/*.so build-gpu/tests/test_gst build-gpu/gst-plugins/libgstjetfilter.so; do
  [ -e "$f" ] || continue
  ldd "$f" | awk '/=> \//{print $3}' | grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libstdc\+\+|libgcc_s)\.so' |
    while read -r lib; do cp -Lu "$lib" "$out/lib/"; done
done
du -sh "$out"
