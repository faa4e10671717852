#!/usr/bin/env bash
# What a release publishes, made the way CI makes it, then used where
# nothing of the source tree is: DIST (default build/dist) gets
#   - the Debian package (cpack -G DEB from BUILD_DIR; installed and used by
#     scripts/package-check.sh), and
#   - a Python wheel of the CPU build (pip wheel ./python, which configures
#     and builds the C library itself without CUDA, NumPy declared),
# and the wheel is installed into a fresh virtual environment (pip brings
# NumPy) and runs the example of python/README.md unchanged, on a photo.
#   scripts/artifacts.sh [BUILD_DIR] [DIST]
# The wheel links the system's libjpeg, libpng, libtiff and libwebp (it is
# tagged linux_x86_64 or linux_aarch64, not manylinux): it installs where
# those are, as on the machine that built it.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=$(cd "${1:-build}" && pwd)
dist=${2:-$build/dist}
mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
rm -f "$dist"/jetfilter_*.deb "$dist"/jetfilter-*.whl
(cd "$build" && rm -f jetfilter_*.deb && cpack -G DEB > cpack.log 2>&1) || { cat "$build/cpack.log"; exit 1; }
cp "$build"/jetfilter_*.deb "$dist/"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the wheel's own CPU build, in a folder of its own (inside the build tree,
# where a compiler cache keyed on the tree's paths finds it again)
python3 -m venv "$work/builder"
rm -rf "$build/wheel-cbuild"
"$work/builder/bin/python" -m pip install -q --upgrade pip wheel setuptools > /dev/null
JETFILTER_BUILD_DIR=$build/wheel-cbuild JETFILTER_CMAKE_ARGS="-DJETFILTER_CUDA=OFF -DJETFILTER_GSTREAMER=OFF" \
  "$work/builder/bin/python" -m pip wheel -q --no-deps -w "$dist" "$src/python" > "$work/wheel.log" 2>&1 ||
  { tail -40 "$work/wheel.log"; exit 1; }
wheel=$(ls "$dist"/jetfilter-*.whl)
meta=$(python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1])
print(z.read([n for n in z.namelist() if n.endswith(".dist-info/METADATA")][0]).decode())' "$wheel")
grep -q '^Requires-Dist: numpy' <<< "$meta" ||
  { echo "artifacts: the wheel does not declare NumPy"; exit 1; }
# a fresh environment: the wheel and what it declares, nothing else
python3 -m venv "$work/user"
"$work/user/bin/python" -m pip install -q "$wheel"
mkdir "$work/run"
cp "$src/samples/images/retina.jpg" "$work/run/photo.jpg"
awk '/^```python$/ {on = 1; next} /^```$/ {if (on) exit} on' "$src/python/README.md" > "$work/run/example.py"
[ -s "$work/run/example.py" ] || { echo "artifacts: no Python example in python/README.md"; exit 1; }
(cd "$work/run" && "$work/user/bin/python" example.py > out.txt 2>&1) ||
  { cat "$work/run/out.txt"; echo "artifacts: the README's example failed with the wheel"; exit 1; }
[ -s "$work/run/clean.jpg" ] || { echo "artifacts: the example wrote no clean.jpg"; exit 1; }
(cd "$work/run" && "$work/user/bin/jetfilter" denoise photo.jpg -o x.tif > /dev/null) ||
  { echo "artifacts: the wheel's jetfilter command failed"; exit 1; }
echo "artifacts: $(basename "$(ls "$dist"/jetfilter_*.deb)") and $(basename "$wheel") in $dist;" \
     "the wheel ran the README's example in a fresh environment: $(tr '\n' ' ' < "$work/run/out.txt")"
