#!/usr/bin/env bash
# Set up, build and run every test: CTest's, then the Python package's (GPU
# tests skip cleanly without a device).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
(cd build && ctest --output-on-failure --timeout 900 -j "$(nproc)")
scripts/python-test.sh build
