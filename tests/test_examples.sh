#!/usr/bin/env bash
# The examples the README and docs/ mark runnable (a ```sh block right
# after a line "<!-- runnable -->") run as written, each in a fresh folder
# that holds what they name: photo.jpg, my.jpg, photos/ (two photos),
# grainy/ (a photo with camera noise), depth.pfm (a float32 image), the
# built jetfilter first on PATH.
#   tests/test_examples.sh JETFILTER SOURCE_DIR
# (JETFILTER may hold an emulator before the program: then it is skipped:
# the examples call `jetfilter` by name.)
set -uo pipefail
jf=$1 src=$2
case $jf in *" "*) echo "examples: an emulated build; skipped"; exit 0 ;; esac
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
ln -s "$(cd "$(dirname "$jf")" && pwd)/$(basename "$jf")" "$bin/jetfilter"
fail=0 ran=0
for doc in "$src/README.md" "$src"/docs/*.md; do
  # each marked block into its own file: NAME.N.sh
  awk -v out="$bin/$(basename "$doc")" '
    /^<!-- runnable -->$/ { mark = 1; next }
    mark && /^```sh$/ { n++; file = out "." n ".sh"; inblock = 1; mark = 0; next }
    inblock && /^```$/ { inblock = 0; close(file); next }
    inblock { print > file; next }
    { mark = 0 }' "$doc"
done
for block in "$bin"/*.sh; do
  [ -e "$block" ] || continue
  work=$(mktemp -d)
  (
    cd "$work" || exit 1
    export PATH="$bin:$PATH"
    cp "$src/samples/images/retina.jpg" photo.jpg
    cp "$src/samples/images/rocket.jpg" my.jpg
    mkdir photos grainy
    cp "$src/samples/images/chelsea.png" "$src/samples/images/rocket.jpg" photos/
    jetfilter noise photos/chelsea.png -o grainy/chelsea.png --gaussian 15 --quiet
    jetfilter denoise photos/chelsea.png -o depth.pfm -f median -k 1 --depth float --quiet
    bash -euo pipefail "$block" > out.txt 2>&1
  )
  rc=$?
  ran=$((ran + 1))
  if [ $rc -ne 0 ]; then
    echo "FAIL: $(basename "$block" .sh) exited $rc:"
    sed -n '1,30p' "$work/out.txt" 2> /dev/null
    fail=1
  fi
  rm -rf "$work"
done
[ $ran -ge 3 ] || { echo "FAIL: only $ran runnable blocks found"; fail=1; }
echo "examples: $ran runnable blocks of the README and docs/ ran"
exit $fail
