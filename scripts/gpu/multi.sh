#!/usr/bin/env bash
# Several GPUs in one process: --device 0, --device 1 and --device all in
# one run, on 1,200 1080p JPEGs (jpeg-sets.inc: the sample photos, 20 noise
# seeds, in three folders), a codec-bound filter (median k = 5) and a
# GPU-bound one (Gaussian k = 63, RGB), -j 16 and 32, fresh processes
# twice each; 4K JPEGs through each GPU's JPEG engine; non-local means'
# stage times, and given its settings (GPU-bound); outputs of one device
# and all compared with the CPU's codecs; then one serve process, ROUNDS requests of each device choice
# (benchmarks/serve_rounds.py); outputs of one device and of all compared.
# Prints the topology (which CPUs each GPU is near: the jobs of a device
# run there).  Needs build-gpu/ and two or more GPUs.
#   scripts/gpu.sh multi [ROUNDS]      (default 5)
set -u
export LD_LIBRARY_PATH=$PWD/build-gpu/lib
J=${J:-$PWD/build-gpu/jetfilter}
rounds=${1:-5}
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv,noheader; echo "cores: $(nproc)"
for bus in $(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader); do
  b=$(echo "$bus" | tr 'A-F' 'a-f' | sed 's/^0000\(....:\)/\1/'); b=${b: -12}
  echo "$bus near CPUs $(cat /sys/bus/pci/devices/$b/local_cpulist 2> /dev/null || echo '?') (NUMA node $(cat /sys/bus/pci/devices/$b/numa_node 2> /dev/null || echo '?'))"
done
. "$(dirname "$0")/jpeg-sets.inc"
make_set /tmp/in1080 1920x1080 20
mkdir -p /tmp/in1200; for c in 1 2 3; do ln -sfn /tmp/in1080 /tmp/in1200/c$c; done
echo "inputs: $(find -L /tmp/in1200 -name '*.jpg' | wc -l) files"
run() { # label, args...
  local label=$1; shift
  rm -rf /tmp/o_$label
  local t0=$(date +%s.%N)
  $J denoise /tmp/in1200 -o /tmp/o_$label --no-sync --json /tmp/$label.json "$@" > /tmp/$label.log 2>&1
  local rc=$? t1=$(date +%s.%N)
  printf '%-20s rc=%d %6.1f images/s  %s\n' "$label" $rc "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print 1200 / (b - a) }')" \
    "$(grep -E '^  device' /tmp/$label.log | tr -s ' ' | tr '\n' ' ')"
}
for rep in 1 2; do for j in 16 32; do
  for d in 0 1 all; do run med5_dev${d}_j$j -k 5 --device $d -j $j; done
  for d in 0 1 all; do run gauss63_dev${d}_j$j -f gauss -k 63 --device $d -j $j; done
done; done
# 4K JPEGs decoded and encoded by each GPU's JPEG engine (--codec
# nvjpeg), median k = 5, outputs in memory, with the stage times
make_set /tmp/in4k 3840x2160 10
n4k=$(find -L /tmp/in4k -name '*.jpg' | wc -l)
for rep in 1 2; do for d in 0 1 all; do
  rm -rf /dev/shm/o_4k; t0=$(date +%s.%N)
  $J denoise /tmp/in4k -o /dev/shm/o_4k --no-sync -k 5 -j 16 --codec nvjpeg --device $d --stats \
    > /tmp/nvjpeg4k_dev$d.log 2>&1
  printf '%-20s rc=%d %6.1f images/s (%d 4K files)\n' "nvjpeg4k_dev$d" $? \
    "$(awk -v a="$t0" -v b="$(date +%s.%N)" -v n="$n4k" 'BEGIN { print n / (b - a) }')" "$n4k"
done; done
grep -h "decode/jpeg" /tmp/nvjpeg4k_dev0.log /tmp/nvjpeg4k_devall.log
rm -rf /dev/shm/o_4k
# Non-local means, 400 files: blind (the patch and weights chosen by SURE
# on the CPU), where its time goes; then with its settings given (search
# 21, patch 7: the GPU's kernel is the bound) on each device and both
for d in 0 all; do
  rm -rf /tmp/o_nlm; echo "== nlmeans blind --device $d"
  /usr/bin/time -f '%e s wall, %U s user, %S s system' $J denoise /tmp/in1080 -o /tmp/o_nlm --no-sync \
    -f nlmeans -j 16 --device $d --stats 2>&1 | tail -8
done
# given its settings, the CPU's codecs (the same decoder for every file),
# outputs in memory: 1,200 files a run
for rep in 1 2; do for d in 0 1 all; do
  rm -rf /dev/shm/o_nlm; t0=$(date +%s.%N)
  $J denoise /tmp/in1200 -o /dev/shm/o_nlm --no-sync -f nlmeans --search 21 --patch 7 --noise-sigma 10 \
    -j 16 --codec cpu --device $d --quiet
  printf '%-20s rc=%d %6.1f images/s\n' "nlm21x7_dev$d" $? \
    "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print 1200 / (b - a) }')"
done; done
# --codec auto decodes on the CPU while a device's JPEG engine starts, so
# which files the engine decodes depends on timing; with the CPU's codecs
# the outputs of one device and of all must be the same bytes
for d in 0 all; do
  rm -rf /dev/shm/o_cpu$d
  $J denoise /tmp/in1200 -o /dev/shm/o_cpu$d --no-sync -k 5 -j 16 --codec cpu --device $d --quiet
done
diff -rq /dev/shm/o_cpu0 /dev/shm/o_cpuall > /dev/null && echo "med5 j16 --codec cpu: outputs identical" ||
  echo "med5 j16 --codec cpu: OUTPUTS DIFFER"
rm -rf /dev/shm/o_cpu0 /dev/shm/o_cpuall /dev/shm/o_nlm
for f in med5 gauss63; do for j in 16 32; do
  diff -rq /tmp/o_${f}_dev0_j$j /tmp/o_${f}_devall_j$j > /dev/null && echo "$f j$j: outputs identical" || echo "$f j$j: OUTPUTS DIFFER"
done; done
echo "== serve, $rounds rounds"
python3 benchmarks/serve_rounds.py "$J" "$rounds" in1200:/tmp/in1200 -- \
    dev0:--device,0 dev1:--device,1 all:--device,all -- -k 5 -j 16 --no-sync
echo "== serve, non-local means given its settings, $rounds rounds"
python3 benchmarks/serve_rounds.py "$J" "$rounds" in1200:/tmp/in1200 -- \
    dev0:--device,0 dev1:--device,1 all:--device,all -- -f nlmeans --search 21 --patch 7 \
    --noise-sigma 10 -j 16 --codec cpu --no-sync
cp /tmp/med5_devall_j32.json /tmp/gauss63_devall_j32.json "${OUT:-/tmp}"/ 2> /dev/null
