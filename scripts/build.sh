#!/usr/bin/env bash
# Configure and build into build/ (CUDA kernels too when nvcc is found).
# Only commands CMake 3.10 has (the Jetson Nano's JetPack 4.6).
# Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
# JetPack puts nvcc in /usr/local/cuda/bin, which a fresh shell's PATH lacks
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
mkdir -p build
(cd build && cmake .. -DCMAKE_BUILD_TYPE=Release "$@") > build.log 2>&1 || { cat build.log; exit 1; }
(cd build && cmake --build . -- -j"$(nproc)") >> build.log 2>&1 || { cat build.log; exit 1; }
echo "build: ok ($(grep -o 'jetfilter: .*' build.log | head -1 || true))"
