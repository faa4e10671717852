#!/usr/bin/env bash
# Build the Debian package from build/ (cpack -G DEB), check what it holds
# and what it depends on, then install it with apt-get, use it as a user
# would (jetfilter on the PATH, man jetfilter, bash completion, the GStreamer
# element, a program built with pkg-config and with CMake against /usr), and
# remove it.  Installs system-wide: for CI and throwaway machines (as root).
#   scripts/package-check.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=$(cd "${1:-build}" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "package-check: installs system-wide; run as root (CI)"; exit 1; }
# cpack's DEB generator finds the package's Depends with dpkg-shlibdeps and file
for tool in file:file dpkg-shlibdeps:dpkg-dev; do
  command -v "${tool%%:*}" > /dev/null ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${tool#*:}" > /dev/null
done
(cd "$build" && rm -f jetfilter_*.deb && cpack -G DEB > cpack.log 2>&1) || { cat "$build/cpack.log"; exit 1; }
deb=$(ls "$build"/jetfilter_*.deb)
echo "package-check: $(basename "$deb"), $(du -k "$deb" | cut -f1) KB"
fail=0
no() { echo "package-check: FAIL: $*"; fail=1; }
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/jetfilter ./usr/lib/libjetfilter.so.1 ./usr/lib/libjetfilter.a \
         ./usr/include/jetfilter.h ./usr/include/jetfilter/filters.h ./usr/lib/pkgconfig/jetfilter.pc \
         ./usr/lib/cmake/jetfilter/jetfilterConfig.cmake ./usr/share/man/man1/jetfilter.1 \
         ./usr/share/bash-completion/completions/jetfilter ./usr/share/zsh/vendor-completions/_jetfilter \
         ./usr/share/jetfilter/retina.jpg; do
  grep -qx -- "$f" <<< "$contents" || no "not in the package: $f"
done
# the GStreamer element where this system's GStreamer looks for plugins
plugins=$(pkg-config --variable=pluginsdir gstreamer-1.0 2> /dev/null || true)
if [ -n "$plugins" ]; then
  grep -qx -- ".$plugins/libgstjetfilter.so" <<< "$contents" ||
    no "the GStreamer element is not in $plugins: $(grep gstjetfilter <<< "$contents")"
fi
depends=$(dpkg-deb -f "$deb" Depends)
echo "package-check: Depends: $depends"
for d in libc6 libjpeg62-turbo libpng16-16 libtiff6 libwebp7 libwebpmux3 libjansson4; do
  grep -q "$d" <<< "$depends" || no "Depends lacks $d"
done
dpkg-deb -c "$deb" | grep ' ./usr/local/' > /dev/null && no "files under /usr/local"

# install it as a user would, and use it from a folder that is not the tree
apt-get install -y -qq "$deb" > "$build/apt-install.log" 2>&1 || { cat "$build/apt-install.log"; exit 1; }
trap 'apt-get remove -y -qq jetfilter > /dev/null 2>&1 || true' EXIT
work=$(mktemp -d)
cd "$work"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin # a fresh login's
[ "$(command -v jetfilter)" = /usr/bin/jetfilter ] || no "jetfilter is not /usr/bin/jetfilter"
jetfilter -V | grep "^jetfilter [0-9]" > /dev/null || no "jetfilter -V"
cp "$src/samples/images/rocket.jpg" in.jpg
jetfilter denoise in.jpg -o out.png && [ "$(head -c 4 out.png | od -An -c | tr -d ' ')" = "211PNG" ] ||
  no "jetfilter denoise in.jpg -o out.png"
jetfilter denoise out.png -o out.tif && jetfilter denoise out.tif -o out.webp --webp lossless &&
  [ "$(head -c 4 out.tif | od -An -c | tr -d ' ')" = "II*\0" ] &&
  jetfilter info | grep -q "formats: *jpeg png tiff webp pfm$" || no "TIFF and WebP with the installed tool"
jetfilter bench --size 64x48 --ksize 3 --filter median --reps 1 --quiet --json b.json ||
  no "bench with the installed photo"
grep -q '"/usr/bin/../share/jetfilter/retina.jpg"' b.json || no "bench did not take the installed photo"
if command -v man > /dev/null; then
  man -w jetfilter | grep /usr/share/man/man1/jetfilter.1 > /dev/null || no "man -w jetfilter"
  MANWIDTH=80 man jetfilter 2> /dev/null | grep 'JETFILTER_BACKEND' > /dev/null || no "man jetfilter"
fi
bash -c 'source /usr/share/bash-completion/completions/jetfilter
         COMP_WORDS=(jetfilter denoise --ba); COMP_CWORD=2; _jetfilter
         [ "${COMPREPLY[*]}" = --backend ]' || no "bash completion from the package"
if [ -n "$plugins" ] && command -v gst-inspect-1.0 > /dev/null; then
  # a registry of its own: the package's element, found as a user's GStreamer finds it
  export GST_REGISTRY=$work/registry.bin
  gst-inspect-1.0 jetfilter > gst-inspect.txt 2>&1 || no "gst-inspect-1.0 jetfilter: $(tail -1 gst-inspect.txt)"
  gst-launch-1.0 -q videotestsrc num-buffers=5 ! video/x-raw,format=I420,width=64,height=48 \
      ! jetfilter filter=median ksize=3 backend=cpu ! fakesink > gst-launch.txt 2>&1 ||
    no "a pipeline through the installed element: $(tail -2 gst-launch.txt)"
fi
cc -o pc "$src/tests/consumer/main.c" $(pkg-config --cflags --libs jetfilter) &&
  ./pc in.jpg | grep "640x427 filtered" > /dev/null && ldd pc | grep -E '=> (/usr)?/lib/libjetfilter.so.1' > /dev/null ||
  no "a pkg-config consumer of /usr"
mkdir cm && (cd cm && cmake "$src/tests/consumer" > log 2>&1 && cmake --build . >> log 2>&1 &&
  ./consumer ../in.jpg | grep "640x427 filtered" > /dev/null) || { cat cm/log; no "a CMake consumer of /usr"; }
cd /
rm -rf "$work"
apt-get remove -y -qq jetfilter > /dev/null
trap - EXIT
[ ! -e /usr/bin/jetfilter ] && [ ! -e /usr/lib/libjetfilter.so.1 ] || no "files left after removal"
[ $fail -eq 0 ] && echo "package-check: installed, used (tool, man page, completion, GStreamer element, pkg-config, CMake) and removed"
exit $fail
