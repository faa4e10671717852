#!/usr/bin/env bash
# Install the build into a temporary prefix, then build and run a program
# that uses it through find_package(jetfilter) and through pkg-config.
#   tests/install_consumer.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d /tmp/jetfilter-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
cmake -S "$src/tests/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/configure.log"
cmake --build "$tmp/consumer" > "$tmp/build.log"
"$tmp/consumer/consumer" "$src/samples/images/rocket.jpg" | grep -q "640x427 filtered"
flags=$(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs --static jetfilter)
cc -o "$tmp/pc" "$src/tests/consumer/main.c" $flags
"$tmp/pc" "$src/samples/images/chelsea.png" | grep -q "451x300 filtered"
echo "install: find_package and pkg-config consumers built and ran"
