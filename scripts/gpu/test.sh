#!/usr/bin/env bash
# On the GPU machine, after scripts/gpu.sh build built build-gpu/ here: the
# GPU tests, logs under $OUT (or OUTDIR), a short table last.
#   scripts/gpu.sh test [--quick] [OUTDIR]   (the logs end up in OUTDIR/gpu-logs.tar.gz)
# 1. the device; 2. test_gpu (every variant against the CPU) and check_rows
# (every row of the variant tables against its reference); 3. the same in
# Jetson Nano limits mode (JETFILTER_DEVICE_LIMITS=nano: 1 SM, 48 KiB shared
# memory and 32K registers per block); 4. the frame-loop sample; 5. the CLI on
# the GPU against the CLI on the CPU; 6. the Nano's sm_53 code as PTX, where
# built.  --quick leaves out 3's full matrix and 5.  The sanitizers:
# scripts/gpu.sh sanitize.
set -uo pipefail
cd "$(dirname "$0")/../.."
quick=0
[ "${1:-}" = "--quick" ] && { quick=1; shift; }
dest=${1:-${OUT:-/tmp/jf-gpu-run}}
out=$(mktemp -d /tmp/jf-gpu-logs-XXXXXX)
mkdir -p "$dest"
export JF_SOURCE_DIR=$PWD LD_LIBRARY_PATH=$PWD/build-gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
b=${JF_GPU_BUILD:-build-gpu}
declare -a rows
step() { # name, log, command...
  local name=$1 log=$2; shift 2
  local t0=$SECONDS
  "$@" > "$out/$log" 2>&1
  local rc=$?
  rows+=("$(printf '%-34s %-5s %4ds  %s' "$name" "$([ $rc -eq 0 ] && echo PASS || echo FAIL)" $((SECONDS - t0)) "$(grep -E 'PASSED|FAILED|ERROR SUMMARY|RACECHECK SUMMARY|cli check|gpu_frames:|cases' "$out/$log" | tail -2 | tr '\n' ' ' | cut -c1-110)")")
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader > "$out/device.txt" 2>&1
$b/jetfilter info >> "$out/device.txt" 2>&1
step "test_gpu" test_gpu.log $b/tests/test_gpu
step "check_rows (every row)" check_rows.log $b/tests/check_rows
step "check_rows, Nano limits" check_rows_nano.log env JETFILTER_DEVICE_LIMITS=nano $b/tests/check_rows
if [ $quick -eq 1 ]; then
  step "test_gpu, Nano limits (quick)" test_gpu_nano.log env JETFILTER_DEVICE_LIMITS=nano $b/tests/test_gpu --quick
else
  step "test_gpu, Nano limits" test_gpu_nano.log env JETFILTER_DEVICE_LIMITS=nano $b/tests/test_gpu
fi
step "sample gpu_frames 1920x1080" gpu_frames.log $b/jetfilter-gpu-frames 1920 1080 300
step "sample gpu_frames, Nano limits" gpu_frames_nano.log env JETFILTER_DEVICE_LIMITS=nano $b/jetfilter-gpu-frames 1023 577 60
[ $quick -eq 1 ] || step "CLI cuda vs cpu" cli_check.log scripts/gpu.sh cli-check $b/jetfilter
# the Jetson Nano's code: sm_53 as PTX from CUDA 11.8 (scripts/gpu.sh build
# 53-virtual build-gpu53), compiled by this machine's driver at load time
if [ -x build-gpu53/tests/test_gpu ]; then
  step "sm_53 PTX (CUDA 11.8): test_gpu" test_gpu53.log build-gpu53/tests/test_gpu
  step "sm_53 PTX, Nano limits: test_gpu" test_gpu53_nano.log env JETFILTER_DEVICE_LIMITS=nano build-gpu53/tests/test_gpu --quick
  step "sm_53 PTX: sample gpu_frames" gpu_frames53.log build-gpu53/jetfilter-gpu-frames 1920 1080 100
fi
printf '%s\n' "${rows[@]}" > "$out/summary.txt"
tar czf "$dest/gpu-logs.tar.gz" -C "$out" .
head -1 "$out/device.txt"
printf '%s\n' "${rows[@]}"
! printf '%s\n' "${rows[@]}" | grep ' FAIL ' > /dev/null
