#!/usr/bin/env bash
# Install the build into a temporary prefix, then build and run a program
# that uses it through find_package(jetfilter) and through pkg-config.  Only
# commands CMake 3.10 has (the Jetson's): no --install, no -S/-B.
#   tests/install_consumer.sh BUILD_DIR SOURCE_DIR [CMAKE]
set -euo pipefail
build=$1 src=$2 cmake=${3:-cmake}
tmp=$(mktemp -d /tmp/jetfilter-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$cmake" -DCMAKE_INSTALL_PREFIX="$tmp/prefix" -P "$build/cmake_install.cmake" > "$tmp/install.log"
mkdir "$tmp/consumer"
(cd "$tmp/consumer" && "$cmake" "$src/tests/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" > configure.log &&
 "$cmake" --build . > build.log) || { cat "$tmp/consumer/"*.log; exit 1; }
"$tmp/consumer/consumer" "$src/samples/images/rocket.jpg" | grep -q "640x427 filtered"
flags=$(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs --static jetfilter)
cc -o "$tmp/pc" "$src/tests/consumer/main.c" $flags
"$tmp/pc" "$src/samples/images/chelsea.png" | grep -q "451x300 filtered"
echo "install: find_package and pkg-config consumers built and ran"
