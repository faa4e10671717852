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
# and tested (videotestsrc, gst-inspect-1.0, the check library);
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
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all build dependencies present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${missing[*]}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
