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
"$tmp/consumer/consumer" "$src/samples/images/rocket.jpg" | grep "640x427 filtered" > /dev/null
shared=0
if [ -e "$tmp/prefix/lib/libjetfilter.so.1" ]; then
  shared=1
  # jetfilter::jetfilter is the shared library, found through its SONAME
  ldd "$tmp/consumer/consumer" | grep "libjetfilter.so.1 => $tmp/prefix/lib/" > /dev/null ||
    { echo "install: the find_package consumer does not use libjetfilter.so.1"; ldd "$tmp/consumer/consumer"; exit 1; }
  "$tmp/consumer/consumer_static" "$src/samples/images/rocket.jpg" | grep "640x427 filtered" > /dev/null
  ! ldd "$tmp/consumer/consumer_static" | grep libjetfilter > /dev/null ||
    { echo "install: jetfilter::jetfilter_static links the shared library"; exit 1; }
fi
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
# pkg-config as the README gives it, and --static
cc -o "$tmp/pc" "$src/tests/consumer/main.c" $(pkg-config --cflags --libs jetfilter) \
   -Wl,-rpath,"$tmp/prefix/lib"
"$tmp/pc" "$src/samples/images/chelsea.png" | grep "451x300 filtered" > /dev/null
cc -o "$tmp/pc_static" "$src/tests/consumer/main.c" $(pkg-config --cflags jetfilter) \
   "$tmp/prefix/lib/libjetfilter.a" $(pkg-config --libs-only-L --libs-only-other --static jetfilter) \
   $(pkg-config --static --libs-only-l jetfilter | sed 's/-ljetfilter //')
"$tmp/pc_static" "$src/samples/images/chelsea.png" | grep "451x300 filtered" > /dev/null
! ldd "$tmp/pc_static" | grep libjetfilter > /dev/null
echo "install: find_package (shared: $shared, static) and pkg-config (--libs, --static) consumers built and ran"
