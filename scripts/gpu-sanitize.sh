#!/usr/bin/env bash
# On the GPU machine: compute-sanitizer over the full GPU test matrix, one
# process per test and tool.  scripts/gpu-run.sh runs both tools on
# test_gpu --quick; this is the long form for a kernel change that is about
# to land.  The whole matrix takes longer than one 10-minute call on an
# H200 (racecheck of test_median_all_variants's full matrix did not finish
# in 9 minutes beside three other sanitizer runs; its --quick matrix alone
# takes 29 s), so split it with JF_SANITIZE_TESTS.  Processes sharing the GPU slow each
# other (4 at once: racecheck --quick 1.6x slower than alone).
#   scripts/gpu-sanitize.sh [OUTDIR]   (default $OUT or /tmp/jf-sanitize)
#   JF_SANITIZE_TESTS="test_a test_b" (default: every test of tests/test_gpu.c),
#   JF_SANITIZE_TOOLS="racecheck memcheck" (the default), JF_SANITIZE_JOBS=N (default 2),
#   JF_SANITIZE_TIMEOUT=S (default 540 a test), JF_SANITIZE_QUICK="test_a ..." (tests run
#   with --quick)
set -uo pipefail
cd "$(dirname "$0")/.."
dest=${1:-${OUT:-/tmp/jf-sanitize}}
mkdir -p "$dest/sanitize"
export JF_SOURCE_DIR=$PWD LD_LIBRARY_PATH=$PWD/build-gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
b=${JF_GPU_BUILD:-build-gpu}
jobs=${JF_SANITIZE_JOBS:-2}
tests=${JF_SANITIZE_TESTS:-$(grep -o 'cmocka_unit_test(test_[a-z0-9_]*)' tests/test_gpu.c | sed 's/.*(\(.*\))/\1/')}
one() { # tool test
  local tool=$1 t=$2 q=""
  case " ${JF_SANITIZE_QUICK:-} " in *" $t "*) q=--quick ;; esac
  local log="$dest/sanitize/$tool-$t.log" t0=$SECONDS
  JF_TEST_FILTER=$t timeout "${JF_SANITIZE_TIMEOUT:-540}" compute-sanitizer --tool "$tool" \
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
for tool in ${JF_SANITIZE_TOOLS:-racecheck memcheck}; do for t in $tests; do echo "$tool $t"; done; done |
    xargs -P "$jobs" -L 1 bash -c 'one "$0" "$1"' | sort > "$dest/sanitize/summary.txt"
cat "$dest/sanitize/summary.txt"
! grep -qE ' (FAIL|TIMEOUT) ' "$dest/sanitize/summary.txt"
