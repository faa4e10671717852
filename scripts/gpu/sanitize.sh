#!/usr/bin/env bash
# On the GPU machine: compute-sanitizer (memcheck with leak checks, and
# racecheck) over the GPU tests.
#   scripts/gpu.sh sanitize quick [OUTDIR]   both tools on test_gpu --quick: memcheck in one
#                                            process, racecheck one per test, 3 at once
#                                            (minutes: every kernel, a smaller matrix)
#   scripts/gpu.sh sanitize full [OUTDIR]    one process per test and tool on the full
#                                            matrix, for a kernel change about to land
# The full matrix takes longer than one 10-minute call on an H200, so split
# it with JF_SANITIZE_TESTS; processes sharing the GPU slow each other.
#   JF_SANITIZE_TESTS="test_a test_b" (default: every test of tests/test_gpu.c),
#   JF_SANITIZE_TOOLS="racecheck memcheck" (the default), JF_SANITIZE_JOBS=N (default 2),
#   JF_SANITIZE_TIMEOUT=S (default 540 a test), JF_SANITIZE_QUICK="test_a ..." (tests run
#   with --quick)
set -uo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-quick}
[ $# -gt 0 ] && shift
dest=${1:-${OUT:-/tmp/jf-sanitize}}
mkdir -p "$dest/sanitize"
export JF_SOURCE_DIR=$PWD LD_LIBRARY_PATH=$PWD/build-gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
b=${JF_GPU_BUILD:-build-gpu}
jobs=${JF_SANITIZE_JOBS:-2}
tests=${JF_SANITIZE_TESTS:-$(grep -o 'cmocka_unit_test(test_[a-z0-9_]*)' tests/test_gpu.c | sed 's/.*(\(.*\))/\1/')}
if [ "$mode" = quick ]; then
  # memcheck over every test in one process; racecheck, several times slower
  # (over 9 minutes for all of them on an H100), one process per test
  export JF_SANITIZE_QUICK="all $tests"
  jobs=${JF_SANITIZE_JOBS:-3}
  units=$(echo "memcheck all"; for t in $tests; do echo "racecheck $t"; done)
elif [ "$mode" != full ]; then
  echo "usage: scripts/gpu.sh sanitize quick|full [OUTDIR]" >&2
  exit 2
fi
one() { # tool test
  local tool=$1 t=$2 q=""
  case " ${JF_SANITIZE_QUICK:-} " in *" $t "*) q=--quick ;; esac
  local log="$dest/sanitize/$tool-$t.log" t0=$SECONDS
  local filter=JF_TEST_FILTER=$t
  [ "$t" = all ] && filter=JF_SANITIZE_ALL=1
  env "$filter" timeout "${JF_SANITIZE_TIMEOUT:-540}" compute-sanitizer --tool "$tool" \
      $([ "$tool" = memcheck ] && echo --leak-check full) "$b/tests/test_gpu" $q > "$log" 2>&1
  local rc=$? verdict
  if [ $rc -eq 124 ]; then verdict=TIMEOUT
  elif [ $rc -eq 0 ] && grep -qE '(ERROR|RACECHECK) SUMMARY: 0 ' "$log"; then verdict=CLEAN
  else verdict=FAIL; fi
  printf '%-9s %-34s %-7s %4ds %s %s\n' "$tool" "$t" "$verdict" $((SECONDS - t0)) "$q" \
      "$(grep -E 'SUMMARY|PASSED|FAILED' "$log" | tr '\n' ' ' | cut -c1-90)"
}
export -f one
export dest b
[ -n "${units:-}" ] || units=$(for tool in ${JF_SANITIZE_TOOLS:-racecheck memcheck}; do
                                  for t in $tests; do echo "$tool $t"; done; done)
echo "$units" |
    xargs -P "$jobs" -L 1 bash -c 'one "$0" "$1"' | sort > "$dest/sanitize/summary.txt"
cat "$dest/sanitize/summary.txt"
! grep -qE ' (FAIL|TIMEOUT) ' "$dest/sanitize/summary.txt"
