#!/usr/bin/env bash
# Batches in one Python process (jetfilter.denoise, in-process) against fresh processes and serve
# in one run: 400 1080p and 100 4K JPEGs (jpeg-sets.inc), median k = 5,
# JPEG q92 out, -j 16, --no-sync, --codec auto.
#  1. fresh processes: `jetfilter denoise`, 2 rounds a set;
#  2. one Python process: a first call a set, then ROUNDS rounds
#     (benchmarks/python_batch_rounds.py), with jetfilter.denoise and then
#     in another process with a jetfilter.Worker;
#  3. one serve process: ROUNDS requests a set (benchmarks/serve_rounds.py).
# Carry build-gpu/jetfilter, build-gpu/lib and the Python module
# (scripts/gpu.sh python-build).
#   scripts/gpu.sh python-batch [ROUNDS]      (default 5)
set -u
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/build-gpu/lib PYTHONPATH=$PWD/python
J=$PWD/build-gpu/jetfilter
rounds=${1:-5}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores: $(nproc)"
. "$(dirname "$0")/jpeg-sets.inc"
make_set /tmp/in1080 1920x1080 20
make_set /tmp/in4k 3840x2160 5
echo "== 1. fresh processes"
fresh_rounds
echo "== 2. one Python process, $rounds rounds: jetfilter.denoise"
python3 benchmarks/python_batch_rounds.py "$rounds" in1080:/tmp/in1080 in4k:/tmp/in4k -- \
    ksize=5 jobs=16 no_sync=true
echo "== 2b. one Python process, $rounds rounds: a jetfilter.Worker"
python3 benchmarks/python_batch_rounds.py "$rounds" --worker in1080:/tmp/in1080 in4k:/tmp/in4k -- \
    ksize=5 jobs=16 no_sync=true
echo "== 3. one serve process, $rounds rounds"
python3 benchmarks/serve_rounds.py "$J" "$rounds" in1080:/tmp/in1080 in4k:/tmp/in4k -- auto: -- -k 5 -j 16 --no-sync
