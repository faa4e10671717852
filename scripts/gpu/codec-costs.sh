#!/usr/bin/env bash
# The GPU JPEG path against the CPU's and NVIDIA's Python stack, and the
# figures of --codec auto's cost model (pipeline/codec_choice.c): 400 and
# 2000 1080p JPEGs (the 400 five times), 100 4K JPEGs, median k = 5, JPEG
# out, a fresh process each, REPS rounds.  A path's steady rate is
# (2000 - 400) / (t2000 - t400), its start-up t400 - 400 / rate; the model
# takes a core's milliseconds per MB of JPEG from the rates.  The decode
# engines' use (nvidia-smi dmon) during a 2000-file run of each path.
# Carry build-gpu/jetfilter, build-gpu/bench_jpeg_check, build-gpu/lib and the
# peers (.device-carry/peers).
#   scripts/gpu.sh codec-costs [REPS]      (default 2)
set -u
export LD_LIBRARY_PATH=$PWD/build-gpu/lib
J=$PWD/build-gpu/jetfilter
reps=${1:-2}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores: $(nproc)"
. "$(dirname "$0")/jpeg-sets.inc"
make_set /tmp/in1080 1920x1080 20
make_set /tmp/in4k 3840x2160 5
make_2000
if [ -x build-gpu/bench_jpeg_check ]; then
  few=$(find /tmp/in1080/s1 -name '*.jpg' | sort)
  echo "== the damaged-data check (benchmarks/bench_jpeg_check.c), one thread"; build-gpu/bench_jpeg_check $few
  echo "== the same on every core at once (mean of the threads)"
  for i in $(seq "$(nproc)"); do build-gpu/bench_jpeg_check $few > /tmp/cc$i.txt & done; wait
  cat /tmp/cc[0-9]*.txt | awk -F'  +' '/ms a file/ {s[$1] += $2; n[$1]++}
    END {for (k in s) printf "%-28s %7.3f ms a file\n", k, s[k] / n[k]}'
fi
rows=/tmp/codec-costs.rows; : > $rows
run() { # LABEL SET ARGS...
  local label=$1 set=$2; shift 2; rm -rf /tmp/o_cc
  TIMEFORMAT='%R %U %S'
  { time $J denoise /tmp/$set -o /tmp/o_cc -k 5 --no-sync -j 16 --quiet --json /tmp/cc.json "$@" 2> /tmp/cc.err; } 2> /tmp/cc.time
  python3 - "$label" "$set" $(cat /tmp/cc.time) >> $rows <<'PY'
import json, sys
label, set_, real, user, sys_ = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:6])
d = json.load(open('/tmp/cc.json')); s = d['summary']
gpu = sum(1 for f in d['files'] if 'jpeg-nvjpeg-h' in json.dumps(f))
print(json.dumps({'label': label, 'set': set_, 'wall': real, 'cpu': user + sys_, 'ok': s['ok'], 'failed': s['failed'],
                  'gpu_decoded': gpu, 'choice': (d.get('codecs') or {}).get('chosen')}))
PY
  tail -1 $rows
}
for r in $(seq "$reps"); do
  for set in in1080 in2000; do
    run cpu $set --codec cpu
    run nvjpeg $set --codec nvjpeg
    run trust $set --codec nvjpeg --trust-input
    run auto $set --codec auto
  done
  for mode in cpu nvjpeg auto; do run $mode in4k --codec $mode; done
done
echo "== decode engines (nvidia-smi dmon -s u), a 2000-file run of each path"
for mode in cpu nvjpeg; do
  nvidia-smi dmon -s u -d 1 > /tmp/dmon.$mode.txt 2>&1 & dm=$!
  run $mode-dmon in2000 --codec $mode > /dev/null
  kill $dm 2> /dev/null; wait $dm 2> /dev/null
  echo "-- $mode"; cat /tmp/dmon.$mode.txt
done
mb=$(find /tmp/in1080 -name '*.jpg' -printf '%s\n' | awk '{s += $1; n++} END {printf "%.4f", s / n / 1048576}')
mb4k=$(find /tmp/in4k -name '*.jpg' -printf '%s\n' | awk '{s += $1; n++} END {printf "%.4f", s / n / 1048576}')
echo "== fit (MB a file: 1080p $mb, 4K $mb4k)"
python3 - "$rows" "$mb" "$mb4k" "$(nproc)" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
mb, mb4k, cores = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
workers = min(16, cores)
def med(label, set_):
    w = [r['wall'] for r in rows if r['label'] == label and r['set'] == set_]
    return statistics.median(w) if w else float('nan')
def cpu_ms(label, set_):
    r = [x for x in rows if x['label'] == label and x['set'] == set_]
    return statistics.median(x['cpu'] * 1e3 / max(1, x['ok']) for x in r)
print("path     400 files        2000 files       100 4K           steady img/s  start s  CPU ms/MB  CPU ms/img (2000)")
fit = {}
for p in ('cpu', 'nvjpeg', 'trust'):
    t4, t20, tk = med(p, 'in1080'), med(p, 'in2000'), med(p, 'in4k')
    rate = 1600 / (t20 - t4); start = t4 - 400 / rate
    fit[p] = (rate, start, cpu_ms(p, 'in2000') / mb)  # a core's ms a MB: the CPU time
    print("%-8s %5.2f s %6.1f/s  %5.2f s %6.1f/s  %s  %8.1f  %7.2f  %9.1f  %8.1f" % (
        p, t4, 400 / t4, t20, 2000 / t20,
        "%5.2f s %6.1f/s" % (tk, 100 / tk) if tk == tk else "      -         ", rate, start, fit[p][2], cpu_ms(p, 'in2000')))
for set_, n in (('in1080', 400), ('in2000', 2000), ('in4k', 100)):
    r = [x for x in rows if x['label'] == 'auto' and x['set'] == set_]
    t = med('auto', set_)
    print("auto     %-6s %5.2f s %6.1f/s  chose %s (%s); decoded on the GPU: %s of %d" % (
        set_, t, n / t, ", ".join(sorted(set(x['choice'] or '-' for x in r))),
        "cpu %.2f s, nvjpeg %.2f s" % (med('cpu', set_), med('nvjpeg', set_)),
        "/".join(str(x['gpu_decoded']) for x in r), n))
# auto's GPU path starts with the CPU decoding while the engine starts: its
# start-up beyond the CPU path's, from the 2000-file runs where it took the GPU
gpu2000 = [x['wall'] for x in rows if x['label'] == 'auto' and x['set'] == 'in2000' and x['choice'] == 'gpu']
start = statistics.median(gpu2000) - 2000 / fit['nvjpeg'][0] - fit['cpu'][1] if gpu2000 else float('nan')
print("model: cpu_core_ms_per_mb %.1f, gpu_core_ms_per_mb %.1f, trust_core_ms_per_mb %.1f, "
      "engine_mb_per_s %.0f (trust's steady rate), gpu_start_s %.2f (auto's start beyond the CPU path's)" % (
      fit['cpu'][2], fit['nvjpeg'][2], fit['trust'][2], fit['trust'][0] * mb, start))
PY
echo "== baseline: nvImageCodec + CV-CUDA (benchmarks/nvimgcodec_cvcuda.py)"
mkdir -p /tmp/site; for f in .device-carry/peers/*.tar.xz; do [ -e "$f" ] && tar -xJf "$f" -C /tmp/site; done
export PYTHONPATH=/tmp/site
TIMEFORMAT='   process wall %R s'
for b in 32 128; do echo "-- 400, batch $b"; time python3 benchmarks/nvimgcodec_cvcuda.py /tmp/in1080 /tmp/o_b --batch $b --rounds 3; done
echo "-- 2000, batch 128, one round"; time python3 benchmarks/nvimgcodec_cvcuda.py /tmp/in2000 /tmp/o_b --batch 128 --rounds 1
echo "-- 100 4K, batch 32"; time python3 benchmarks/nvimgcodec_cvcuda.py /tmp/in4k /tmp/o_b --batch 32 --rounds 3
