# Sourced by the pipeline benchmarks (gst_bench.sh, gst_cuda_bench.sh).
# best_secs RUNS ERRFILE COMMAND...: the best wall time of RUNS runs of the
# command (through bash -c; its standard error appended to ERRFILE), in
# seconds; a run that fails is said and the function fails.
best_secs() {
  local runs=$1 err=$2 best=999999 i s e
  shift 2
  for ((i = 0; i < runs; i++)); do
    s=$(date +%s.%N)
    bash -c "$*" > /dev/null 2>> "$err" || { echo "FAILED: $*" >&2; return 1; }
    e=$(date +%s.%N)
    best=$(python3 -c "print(min($best, $e - $s))")
  done
  echo "$best"
}
