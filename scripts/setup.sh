#!/usr/bin/env bash
# Install what jetfilter needs to build and test, on Debian, Ubuntu or JetPack.
# Runs apt-get through sudo when not root.  Skips what is already there.
set -euo pipefail
# parallel: the scale-out test runs shards at once as GNU parallel would;
# ffmpeg: the stream tests make and consume Y4M streams with it;
# groff-base, zsh: the man page and the zsh completion are checked with them;
# python3-jsonschema: the reports are checked against docs/report.schema.json;
# python3-dev, python3-venv: the Python package is built and tested in a venv;
# GStreamer's development files, tools and base plugins: the element is built
# and tested (videotestsrc, gst-inspect-1.0, the check library); GStreamer's
# CUDA library below;
# file, dpkg-dev: cpack -G DEB works out the package's dependencies with them
pkgs=(build-essential cmake pkg-config libjpeg-dev libpng-dev zlib1g-dev libdeflate-dev libtiff-dev libwebp-dev
      libjansson-dev libcmocka-dev
      parallel ffmpeg groff-base zsh python3-jsonschema python3-dev python3-venv
      libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-tools gstreamer1.0-plugins-base
      file dpkg-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" > /dev/null || missing+=("$p")
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all build dependencies present"
else
  echo "setup: installing ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# GStreamer's CUDA library (public from 1.22; Debian 12 and later): the
# element then takes frames in CUDA memory.  Its runtime package, and from
# the development package only the headers and the pkg-config file: that
# package depends on OpenCV's development files (about 160 packages).
# Installed under /usr/local, where pkg-config looks first.
gst_cuda_headers() {
  local arch ver tmp pc=/usr/local/lib/pkgconfig/gstreamer-cuda-1.0.pc
  pkg-config --exists 'gstreamer-cuda-1.0 >= 1.22' && return 0
  ver=$(apt-cache policy libgstreamer-plugins-bad1.0-dev 2>/dev/null | awk '/Candidate:/ {print $2}')
  [ -n "$ver" ] && [ "$ver" != "(none)" ] && dpkg --compare-versions "$ver" ge 1.22 || return 0
  arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libgstreamer-plugins-bad1.0-0 > /dev/null
  tmp=$(mktemp -d) && chmod 777 "$tmp" # apt-get download writes as _apt
  (cd "$tmp" && apt-get download -qq libgstreamer-plugins-bad1.0-dev > /dev/null) &&
    dpkg -x "$tmp"/libgstreamer-plugins-bad1.0-dev_*.deb "$tmp/x" || { rm -rf "$tmp"; return 1; }
  $sudo mkdir -p /usr/local/include/gstreamer-1.0/gst /usr/local/lib/pkgconfig
  $sudo cp -r "$tmp/x/usr/include/gstreamer-1.0/gst/cuda" /usr/local/include/gstreamer-1.0/gst/
  sed -e 's|^includedir=.*|includedir=/usr/local/include|' \
      -e "s|^Libs:.*|Libs: -L/usr/lib/$arch -l:libgstcuda-1.0.so.0|" \
      "$tmp/x/usr/lib/$arch/pkgconfig/gstreamer-cuda-1.0.pc" | $sudo tee "$pc" > /dev/null
  rm -rf "$tmp"
  echo "setup: GStreamer's CUDA library $ver (headers in /usr/local/include/gstreamer-1.0/gst/cuda)"
}
gst_cuda_headers
