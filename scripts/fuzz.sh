#!/usr/bin/env bash
# Run the libFuzzer harnesses (tests/fuzz/) with ASan and UBSan.
#   scripts/fuzz.sh [SECONDS] [--merge]
# Builds build-fuzz/ with clang, then runs each harness for SECONDS (default
# 90; as many at once as there are cores), starting from the committed
# corpus in tests/fuzz/corpus/NAME:
# fuzz_decode (JPEG/PNG decoders and encoders), fuzz_pages (TIFF's pages
# and WebP, decoded and encoded again), fuzz_jpeg_check (the
# damaged-data check's walk never looser than libjpeg-turbo), fuzz_kernel (kernel files),
# fuzz_profile (tuning profiles, and the resolver over what they hold),
# fuzz_y4m (Y4M streams), fuzz_report (the report reader of report merge),
# fuzz_intake (the Python extension's array intake: lying shapes, strides,
# dtypes), fuzz_plan (the plan's parameters, as Python and GStreamer set
# them), fuzz_options (every command's option parser), fuzz_serve (serve's
# requests).
# --merge adds the new inputs that found new coverage (small ones, under
# 4 KB) to the committed corpus.  Exits non-zero on the first crash, leak or
# undefined behaviour; the input is left in build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-90}
merge=0
[ "${2:-}" = "--merge" ] && merge=1
CC=${CC:-clang} cmake -S . -B build-fuzz -DJETFILTER_FUZZ=ON -DJETFILTER_CUDA=OFF -DJETFILTER_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo > build-fuzz.log 2>&1 || { cat build-fuzz.log; exit 1; }
targets="decode pages jpeg_check kernel profile y4m report intake plan options serve"
cmake --build build-fuzz -j "$(nproc)" --target $(printf 'fuzz_%s ' $targets) >> build-fuzz.log 2>&1 ||
    { cat build-fuzz.log; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1
# One harness, its corpus and log; exit status libFuzzer's.
run_one() { # target
  local target=$1 work=build-fuzz/corpus-$1 quiet=()
  mkdir -p "$work"
  cp -n tests/fuzz/corpus/$target/* "$work/" 2> /dev/null || true
  # the option parser prints every refusal; libFuzzer keeps its own reports
  [ "$target" = options ] && quiet=(-close_fd_mask=2)
  (cd build-fuzz && ./fuzz_$target -max_total_time="$secs" -rss_limit_mb=1024 -max_len=65536 \
      -timeout=10 -print_final_stats=1 "${quiet[@]}" "corpus-$target" > "fuzz_$target.log" 2>&1)
}
# A harness runs on one core: as many at once as there are cores.
set -- $targets
while [ $# -gt 0 ]; do
  batch=() pids=()
  while [ $# -gt 0 ] && [ ${#batch[@]} -lt "$(nproc)" ]; do
    run_one "$1" & batch+=("$1") pids+=($!)
    shift
  done
  for i in "${!batch[@]}"; do
    target=${batch[$i]}
    wait "${pids[$i]}" || { tail -60 "build-fuzz/fuzz_$target.log"; echo "fuzz: fuzz_$target FAILED"; exit 1; }
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "build-fuzz/fuzz_$target.log" | grep -o '[0-9]*$')
    cov=$(grep -oE 'cov: [0-9]+' "build-fuzz/fuzz_$target.log" | tail -1)
    echo "fuzz: fuzz_$target: $runs inputs in ${secs} s, $cov, no crash"
    if [ $merge -eq 1 ]; then
      mkdir -p build-fuzz/merged-$target
      (cd build-fuzz && ./fuzz_$target -merge=1 -max_len=4096 "merged-$target" "../tests/fuzz/corpus/$target" "corpus-$target" > /dev/null 2>&1)
      cp -n build-fuzz/merged-$target/* tests/fuzz/corpus/$target/ 2> /dev/null || true
      echo "fuzz: corpus of fuzz_$target now $(ls tests/fuzz/corpus/$target | wc -l) files"
    fi
  done
done
