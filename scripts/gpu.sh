#!/usr/bin/env bash
# The GPU checks, one driver.  `build` runs on the build machine; the rest
# on the GPU machine, over the tree and build-gpu/ (JF_GPU_BUILD=DIR for
# another); logs under $OUT (or OUTDIR), a short table last.
#
#   scripts/gpu.sh build [ARCH [DIR]]     a build for the GPU machine (static
#                                         dependencies; sm_90; JF_NVCC=CUDA 11.8 and
#                                         ARCH 53-virtual for the Nano's code as PTX)
#   scripts/gpu.sh test [--quick]         test_gpu against the CPU, normal and under the
#                                         Nano's limits, the frame-loop sample, the CLI on
#                                         the GPU against the CPU, the sm_53 PTX where built
#   scripts/gpu.sh sanitize quick|full    compute-sanitizer memcheck and racecheck
#   scripts/gpu.sh all                    test, then sanitize quick: what every kernel
#                                         change needs before it lands
#   scripts/gpu.sh bench OUTDIR           the whole speed matrix against NPP, with plots
#   scripts/gpu.sh STUDY [ARGS]           a study: cli-check, stream, nvjpeg, multi,
#                                         batch-compare, npp-link, python, gst
#   scripts/gpu.sh list                   the studies there are
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:-help}
[ $# -gt 0 ] && shift
case "$cmd" in
  all)
    "$here/gpu/test.sh" "$@"; rc=$?
    "$here/gpu/sanitize.sh" quick "$@" || rc=1
    exit $rc ;;
  list)
    for f in "$here"/gpu/*.sh; do n=$(basename "$f" .sh); echo "$n: $(sed -n 2p "$f" | sed 's/^# //')"; done ;;
  help|-h|--help)
    sed -n '2,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' ;;
  *)
    if [ ! -x "$here/gpu/$cmd.sh" ]; then
      echo "scripts/gpu.sh: no '$cmd' (scripts/gpu.sh list)" >&2
      exit 2
    fi
    exec "$here/gpu/$cmd.sh" "$@" ;;
esac
