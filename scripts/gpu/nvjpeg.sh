#!/usr/bin/env bash
# JPEG decoding on the GPU (nvJPEG) against libjpeg-turbo, on the GPU machine
# after scripts/gpu.sh build: the header check of codec_nvjpeg.c's
# declarations, test_gpu's nvJPEG test, `jetfilter info`, then the batch:
# 400 1080p and 100 3840x2160 JPEGs (scripts/make_1080p.py x noise seeds),
# median k=5 on the GPU, --codec cpu, auto and nvjpeg at 1..16 jobs, alternated:
# wall time, images/s, CPU seconds per image (user+sys), GPU and JPEG-engine
# use (nvidia-smi dmon), outputs of the two decoders compared, --stats.
#   scripts/gpu.sh nvjpeg [JOBS...]      (default 1 2 4 8 16)
set -u
export LD_LIBRARY_PATH=$PWD/build-gpu/lib
J=$PWD/build-gpu/jetfilter
jobs=${*:-1 2 4 8 16}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
[ -n "${SKIP_TEST:-}" ] || { echo "== header check"; cc -fsyntax-only -Wall -I/usr/local/cuda/include tests/gpu/nvjpeg_abi.c && echo "nvjpeg_abi: declarations match nvjpeg.h"
grep -m1 -E 'NVJPEG_VER_(MAJOR|MINOR)' /usr/local/cuda/include/nvjpeg.h | head -2
echo "== test"; JF_REQUIRE_NVJPEG=1 JF_TEST_FILTER='test_nvjpeg*' build-gpu/tests/test_gpu 2>&1 | grep -E 'nvJPEG|PASSED|FAILED|ERROR|error' | tail -40; }
echo "== info"; $J info | grep -i jpeg
mkdir -p /tmp/src1080 /tmp/src4k /tmp/in1080 /tmp/in4k
python3 scripts/make_1080p.py /tmp/src1080 1920x1080 && python3 scripts/make_1080p.py /tmp/src4k 3840x2160
for s in $(seq 1 20); do $J noise /tmp/src1080 -o /tmp/in1080/s$s --salt-pepper 0.02 --seed $s --format same -j 16 --quiet; done
for s in $(seq 1 5); do $J noise /tmp/src4k -o /tmp/in4k/s$s --salt-pepper 0.02 --seed $s --format same -j 16 --quiet; done
echo "inputs: $(find /tmp/in1080 -name '*.jpg' | wc -l) x 1080p ($(du -sh /tmp/in1080 | cut -f1)), $(find /tmp/in4k -name '*.jpg' | wc -l) x 4K ($(du -sh /tmp/in4k | cut -f1))"
run() { # label set codec jobs extra...
  local label=$1 set=$2 codec=$3 j=$4; shift 4
  local n; n=$(find /tmp/in$set -name '*.jpg' | wc -l)
  rm -rf /tmp/o_$label
  TIMEFORMAT='%R %U %S'
  { time $J denoise /tmp/in$set -o /tmp/o_$label --no-sync -k 5 --codec $codec -j $j "$@" > /tmp/$label.log 2>&1 ; } 2> /tmp/$label.time
  read -r real user sys < /tmp/$label.time
  printf '%-18s %4s %-6s -j%-3s %6.2f s  %7.1f img/s  CPU %6.1f ms/img  %s\n' "$label" "$set" "$codec" "$j" "$real" \
    "$(echo "$n $real" | awk '{print $1/$2}')" "$(echo "$user $sys $n" | awk '{print ($1+$2)*1000/$3}')" \
    "$(grep -o '[0-9]* failed' /tmp/$label.log | head -1)"
}
echo "== batch (median k=5 on the GPU; alternated, twice)"
for rep in 1 2; do for set in 1080 4k; do for j in $jobs; do
  run cpu_${set}_j$j $set cpu $j
  run auto_${set}_j$j $set auto $j
  run nv_${set}_j$j $set nvjpeg $j
done; done; done
echo "== decode + encode alone (k=1, CPU codecs, -j 16)"; run codec_1080 1080 cpu 16 -k 1 --backend cpu; run codec_4k 4k cpu 16 -k 1 --backend cpu
echo "== GPU use at -j 16 (nvidia-smi dmon: sm%, jpg% = JPEG engines)"
for codec in cpu auto nvjpeg; do
  nvidia-smi dmon -s u -d 1 > /tmp/dmon_$codec.txt 2>&1 & dm=$!
  for r in 1 2 3; do $J denoise /tmp/in1080 -o /tmp/o_dmon${r}_$codec --no-sync -k 5 --codec $codec -j 16 --quiet; done
  kill $dm; wait $dm 2>/dev/null
  echo "$codec: $(awk '!/^#/ && NF>=6 {n++; sm+=$2; for(i=1;i<=NF;i++) if(h[i]=="jpg") jp+=$i} /^# gpu/ {for(i=2;i<=NF;i++) h[i-1]=$i} END {if(n) printf "%d samples, mean sm %.0f%%, mean jpg %.0f%%", n, sm/n, jp/n}' /tmp/dmon_$codec.txt)"
done
head -3 /tmp/dmon_nvjpeg.txt
echo "== outputs: nvJPEG-decoded vs libjpeg-turbo-decoded, median k=5, 1080p -j 16"
python3 - <<'PY'
import glob, cv2, numpy as np
a = sorted(glob.glob('/tmp/o_cpu_1080_j16/**/*.jpg', recursive=True)); worst = []
for f in a[:400]:
    x = cv2.imread(f).astype(int); y = cv2.imread(f.replace('o_cpu_1080_j16', 'o_nv_1080_j16')).astype(int)
    d = np.abs(x - y); mse = (d ** 2).mean(); worst.append((10 * np.log10(255 ** 2 / mse) if mse else 99, d.mean(), d.max()))
w = np.array(worst); print("%d files: PSNR min %.2f median %.2f dB, mean abs diff max %.4f, largest %d" % (len(w), w[:, 0].min(), np.median(w[:, 0]), w[:, 1].max(), w[:, 2].max()))
PY
echo "== --stats, 1080p -j 16: cpu, auto, nvjpeg"
for codec in cpu auto nvjpeg; do $J denoise /tmp/in1080 -o /tmp/os_$codec -k 5 -j 16 --no-sync --codec $codec --stats 2>&1 | tail -9; done
echo "== progressive and 4:1:1 inputs (hybrid or CPU), and a PNG, through --codec nvjpeg"
mkdir -p /tmp/mix
python3 -c "
import cv2; im = cv2.imread('/tmp/src1080/p00.jpg')
cv2.imwrite('/tmp/mix/prog.jpg', im, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1]); cv2.imwrite('/tmp/mix/plain.jpg', im)
cv2.imwrite('/tmp/mix/grey.jpg', cv2.cvtColor(im, cv2.COLOR_BGR2GRAY)); cv2.imwrite('/tmp/mix/a.png', im)"
head -c 30000 /tmp/mix/plain.jpg > /tmp/mix/cut.jpg
$J denoise /tmp/mix -o /tmp/o_mix --codec nvjpeg -v --stats 2>&1 | grep -vE '^ *$' | tail -16
