#!/usr/bin/env bash
# On the GPU machine: damaged JPEG data on the nvJPEG path, and what the
# check costs.  After scripts/gpu.sh build.  Logs under $OUT.
#   scripts/gpu.sh damaged [OUTDIR]
# 1. 20 clean 1080p JPEGs with restart markers and 3 damaged copies of each
#    (scripts/damage_jpegs.py): --codec cpu and --codec nvjpeg must refuse
#    the same files with the same message; --trust-input shows what nvJPEG
#    alone lets through;
# 2. 400 clean 1080p JPEGs, median k = 5: --codec nvjpeg with the check and
#    with --trust-input, and --codec cpu, at -j 1, 4, 16 (images/s, CPU ms);
# 3. --stats over the six samples 20 times, -k 5 -j 16.
set -u
cd "$(dirname "$0")/../.."
dest=${1:-${OUT:-/tmp/jf-gpu-damaged}}
mkdir -p "$dest"
export LD_LIBRARY_PATH=$PWD/build-gpu/lib
J=$PWD/build-gpu/jetfilter
t=$(mktemp -d)
python3 - "$t/clean" <<'PY'
import glob, os, sys, cv2, numpy as np
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
photos = [cv2.imread(f) for f in sorted(glob.glob("samples/images/*.jpg") + glob.glob("samples/images/*.png"))]
for i in range(20):
    im = cv2.resize(photos[i % len(photos)], (1920, 1080), interpolation=cv2.INTER_CUBIC)
    im = np.roll(im, 37 * i, axis=1)
    cv2.imwrite(os.path.join(out, "c%02d.jpg" % i), im, [cv2.IMWRITE_JPEG_QUALITY, 92, cv2.IMWRITE_JPEG_RST_INTERVAL, 16])
PY
python3 scripts/damage_jpegs.py "$t/bad" "$t"/clean/*.jpg > /dev/null
mkdir -p "$t/mixed" && cp "$t"/clean/*.jpg "$t"/bad/*.jpg "$t/mixed/"
echo "== 1. $(ls "$t/clean" | wc -l) clean and $(ls "$t/bad" | wc -l) damaged JPEGs" | tee "$dest/damaged.txt"
for mode in cpu nvjpeg trust; do
  opt="--codec $mode"; [ $mode = trust ] && opt="--codec nvjpeg --trust-input"
  $J denoise "$t/mixed" -o "$t/out_$mode" -k 5 -j 4 $opt --json "$t/$mode.json" --quiet > "$t/$mode.log" 2>&1
  python3 - "$t/$mode.json" "$mode" <<'PY' | tee -a "$dest/damaged.txt"
import json, sys
r = json.load(open(sys.argv[1]))
bad = [f for f in r["files"] if "_" in f["path"]]
clean = [f for f in r["files"] if "_" not in f["path"]]
print("%-7s clean: %d ok of %d; damaged: %d refused of %d" % (sys.argv[2], sum(f["status"] == "ok" for f in clean),
      len(clean), sum(f["status"] == "failed" for f in bad), len(bad)))
json.dump({f["path"]: (f["status"], f.get("error", "")) for f in r["files"]}, open(sys.argv[1] + ".v", "w"))
PY
done
python3 - "$t/cpu.json.v" "$t/nvjpeg.json.v" <<'PY' | tee -a "$dest/damaged.txt"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
same = sum(1 for k in a if a[k][0] == b[k][0] and a[k][1].split(": ", 1)[-1] == b[k][1].split(": ", 1)[-1])
print("cpu and nvjpeg agree (status and message) on %d of %d files" % (same, len(a)))
for k in sorted(a):
    if a[k] != b[k]:
        print("  differ: %s cpu %s / nvjpeg %s" % (k, a[k], b[k]))
PY
echo "== 2. the cost of the check: 400 x 1080p, median k = 5" | tee -a "$dest/damaged.txt"
mkdir -p "$t/in400"
for s in $(seq 1 20); do $J noise "$t/clean" -o "$t/in400/s$s" --salt-pepper 0.02 --seed $s --format jpg -j 16 --quiet 2> /dev/null; done
for rep in 1 2; do for j in 1 4 16; do for mode in nvjpeg trust cpu; do
  opt="--codec $mode"; [ $mode = trust ] && opt="--codec nvjpeg --trust-input"
  rm -rf "$t/o400"
  TIMEFORMAT='%R %U %S'
  { time $J denoise "$t/in400" -o "$t/o400" --no-sync -k 5 -j $j $opt --quiet > /dev/null 2>&1 ; } 2> "$t/time"
  read -r real user sys < "$t/time"
  printf '%-7s -j%-3s %6.2f s %7.1f img/s  CPU %6.1f ms/img\n' $mode $j "$real" \
    "$(echo "$real" | awk '{print 400/$1}')" "$(echo "$user $sys" | awk '{print ($1+$2)*1000/400}')" | tee -a "$dest/damaged.txt"
done; done; done
echo "== 3. --stats" | tee -a "$dest/damaged.txt"
mkdir -p "$t/s20"; for i in $(seq 1 20); do mkdir -p "$t/s20/$i"; cp samples/images/* "$t/s20/$i/"; rm -f "$t/s20/$i/LICENSES.md"; done
$J denoise "$t/s20" -o "$t/s20out" -k 5 -j 16 --stats 2>&1 | tee -a "$dest/damaged.txt" | tail -12
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$dest/damaged.txt"
rm -rf "$t"
