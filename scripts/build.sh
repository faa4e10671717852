#!/usr/bin/env bash
# Configure, build into build/ (CUDA kernels too when nvcc is found) and
# install into ~/.local (the tool, its man page and shell completions, the
# library), so that `jetfilter` works from anywhere; PREFIX=DIR installs
# there instead, JF_NO_INSTALL=1 leaves everything in build/.  Only commands
# CMake 3.10 has (the Jetson Nano's JetPack 4.6).  Extra arguments go to
# cmake's configure step, e.g. -DJETFILTER_CUDA_ARCHS=87 for one GPU only.
set -euo pipefail
cd "$(dirname "$0")/.."
# JetPack puts nvcc in /usr/local/cuda/bin, which a fresh shell's PATH lacks
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
prefix=${PREFIX:-$HOME/.local}
t0=$SECONDS
mkdir -p build
echo "build: configuring (the log: build/build.log)"
(cd build && cmake .. -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" "$@") \
  > build/build.log 2>&1 || { cat build/build.log; exit 1; }
what=$(grep -oE 'jetfilter: (CUDA .*|no CUDA compiler.*)' build/build.log | head -1 || true)
echo "build: ${what#jetfilter: }"
if grep -q 'jetfilter: CUDA' build/build.log; then
  echo "build: the CUDA kernels take most of the time (minutes per architecture on a small"
  echo "       machine); -DJETFILTER_CUDA_ARCHS=53 (a Jetson Nano), 87 (Orin) or 90 (H100)"
  echo "       builds for one GPU only"
fi
# the compiler's progress: a line at every tenth
set +e
(cd build && cmake --build . -- -j"$(nproc)" 2>&1) | tee -a build/build.log | {
  next=10
  while IFS= read -r line; do
    if [[ $line =~ ^\[\ *([0-9]+)%\] ]] && [ "${BASH_REMATCH[1]}" -ge $next ]; then
      echo "build: ${BASH_REMATCH[1]}% after $((SECONDS - t0)) s"
      next=$(( BASH_REMATCH[1] - BASH_REMATCH[1] % 10 + 10 ))
    fi
  done
}
status=${PIPESTATUS[0]}
set -e
if [ "$status" != 0 ]; then
  grep -B2 -A12 -m3 -E 'error|Error' build/build.log | head -60
  echo "build: FAILED (the whole log: build/build.log)"
  exit 1
fi
echo "build: done in $((SECONDS - t0)) s: build/jetfilter"
[ "${JF_NO_INSTALL:-0}" = 1 ] && exit 0
(cd build && cmake --build . --target install) >> build/build.log 2>&1 ||
  { echo "build: could not install into $prefix (see build/build.log); build/jetfilter works as it is"; exit 0; }
echo "build: installed into $prefix: bin/jetfilter, its man page and completions, the library"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "build: $prefix/bin is not on your PATH; add it: export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
# outside /usr, pkg-config, GStreamer and zsh do not look: the lines that make them
if ! PKG_CONFIG_PATH="${PKG_CONFIG_PATH:-}" pkg-config --exists jetfilter 2> /dev/null; then
  echo "build: for pkg-config to find jetfilter: export PKG_CONFIG_PATH=\"$prefix/lib/pkgconfig:\$PKG_CONFIG_PATH\""
fi
plugins=$(sed -n 's/^-- jetfilter: GStreamer plugin installed into <prefix>\///p' build/build.log | tail -1)
if [ -n "$plugins" ] && [ "$prefix" != "$(pkg-config --variable=prefix gstreamer-1.0 2> /dev/null)" ]; then
  case ":${GST_PLUGIN_PATH:-}:" in
    *":$prefix/$plugins:"*) ;;
    *) echo "build: for GStreamer to find the jetfilter element: export GST_PLUGIN_PATH=\"$prefix/$plugins\"" ;;
  esac
fi
if [ "$prefix" != /usr ] && command -v zsh > /dev/null; then
  echo "build: for zsh's completion, in ~/.zshrc before compinit: fpath=($prefix/share/zsh/vendor-completions \$fpath)"
fi
