#!/usr/bin/env bash
# Several GPUs in one process: 400 1080p JPEGs (20 photos x 20 salt-and-pepper
# seeds, made by `jetfilter noise`), --device 0 against --device all, a
# codec-bound filter (median k=5) and a GPU-bound one (gauss k=63, RGB), -j 16
# and 32, twice; outputs compared.  Needs build-gpu/ (scripts/gpu.sh build) and
# build-gpu/data1080/ (1920x1080 JPEGs) on a machine with two or more GPUs.
set -u
J=$PWD/build-gpu/jetfilter
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; nproc
mkdir -p /tmp/in
for s in $(seq 1 20); do $J noise build-gpu/data1080 -o /tmp/in/s$s --salt-pepper 0.02 --seed $s --format same -j 16 --quiet; done
echo "inputs: $(find /tmp/in -name '*.jpg' | wc -l) files, $(du -sh /tmp/in | cut -f1)"
run() { # label, args...
  local label=$1; shift
  rm -rf /tmp/o_$label
  $J denoise /tmp/in -o /tmp/o_$label --no-sync --json /tmp/$label.json "$@" > /tmp/$label.log 2>&1
  local rc=$?
  printf '%-18s rc=%d %s %s\n' "$label" $rc "$(grep -o 'ok, .* in [0-9.]* s ([0-9.]* MPix/s' /tmp/$label.log | sed 's/ok, 0 failed, 0 skipped //')" "$(grep -E '^  device' /tmp/$label.log | tr -s ' ' | tr '\n' ' ')"
}
for rep in 1 2; do for j in 16 32; do
  run codec_j$j -k 1 --backend cpu -j $j
  run med5_dev0_j$j -k 5 --device 0 -j $j
  run med5_all_j$j -k 5 --device all -j $j
  run gauss63_dev0_j$j -f gauss -k 63 --device 0 -j $j
  run gauss63_all_j$j -f gauss -k 63 --device all -j $j
done; done
for f in med5 gauss63; do for j in 16 32; do diff -rq /tmp/o_${f}_dev0_j$j /tmp/o_${f}_all_j$j > /dev/null && echo "$f j$j: outputs identical" || echo "$f j$j: OUTPUTS DIFFER"; done; done
$J denoise /tmp/in -o /tmp/o_stats -k 5 --device all -j 32 --no-sync --stats 2>&1 | tail -20
cp /tmp/med5_all_j32.json /tmp/gauss63_all_j32.json "${OUT:-/tmp}"/
