#!/usr/bin/env bash
# Two builds of jetfilter on one batch, alternated: 400 1080p JPEGs (from
# build-gpu/data1080, scripts/make_1080p.py, times 20 noise seeds), median k=5
# at -j 16 and -j 8, decode + encode alone, --stats of each, and whether each
# file's JSON stage times add up to its total.  Also test_gpu, memcheck and the
# CLI check of the new build.  NEW: build-gpu/jetfilter, OLD: build-gpu/old/jetfilter.
set -u
export LD_LIBRARY_PATH=$PWD/build-gpu/lib
NEW=$PWD/build-gpu/jetfilter OLD=$PWD/build-gpu/old/jetfilter
nvidia-smi --query-gpu=name --format=csv,noheader; nproc
build-gpu/tests/test_gpu 2>&1 | grep -E 'frames|PASSED|FAILED|ERROR' | tail -4
compute-sanitizer --tool memcheck build-gpu/tests/test_gpu --quick 2>&1 | grep -E 'ERROR SUMMARY|PASSED|FAILED' | tail -2
scripts/gpu.sh cli-check $NEW 2>&1 | tail -1
mkdir -p /tmp/in
for s in $(seq 1 20); do $NEW noise build-gpu/data1080 -o /tmp/in/s$s --salt-pepper 0.02 --seed $s -j 16 --quiet; done
echo "inputs: $(find /tmp/in -name '*.jpg' | wc -l)"
run() { # label binary args...
  local label=$1 bin=$2; shift 2
  rm -rf /tmp/o_$label
  $bin denoise /tmp/in -o /tmp/o_$label --no-sync "$@" > /tmp/$label.log 2>&1
  printf '%-14s %s\n' "$label" "$(grep -o 'in [0-9.]* s ([0-9.]* MPix/s' /tmp/$label.log)"
}
for rep in 1 2 3; do
  run codec $NEW -k 1 --backend cpu -j 16
  run old_med5 $OLD -k 5 -j 16
  run new_med5 $NEW -k 5 -j 16
  run old_med5_j8 $OLD -k 5 -j 8
  run new_med5_j8 $NEW -k 5 -j 8
done
diff -rq /tmp/o_old_med5 /tmp/o_new_med5 > /dev/null && echo "old and new outputs identical" || echo "OUTPUTS DIFFER"
echo "== old --stats"; $OLD denoise /tmp/in -o /tmp/os -k 5 -j 16 --no-sync --stats 2>&1 | tail -9
echo "== new --stats"; $NEW denoise /tmp/in -o /tmp/ns -k 5 -j 16 --no-sync --stats --json /tmp/new.json 2>&1 | tail -7
# per file: read + wait + decode + filter + encode against total
grep -o '"ms":{[^}]*}' /tmp/new.json | sed 's/[a-z"]*://g; s/[{}]//g' | awk -F, '{s=$1+$2+$3+$4+$5+$6; d=$7-s; if (d>m) m=d; t+=d; n++; tt+=$7} END {printf "stage sum vs total: %d files, mean total %.2f ms, mean gap %.3f ms, largest gap %.3f ms\n", n, tt/n, t/n, m}'
