#!/usr/bin/env bash
# Configure and build into build/ (CUDA kernels too when nvcc is found).
# Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" > build.log 2>&1 || { cat build.log; exit 1; }
cmake --build build -j "$(nproc)" >> build.log 2>&1 || { cat build.log; exit 1; }
echo "build: ok ($(grep -o 'jetfilter: .*' build.log | head -1 || true))"
