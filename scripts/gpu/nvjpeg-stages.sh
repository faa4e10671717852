#!/usr/bin/env bash
# Where a file's time goes on the GPU JPEG path: 400 1080p JPEGs (made as
# scripts/gpu.sh nvjpeg-probe makes them), median k=5, --codec nvjpeg with
# and without the damaged-data check and --codec cpu, at the given -j: wall
# images/s, CPU ms per image, and the mean of each step from --json.
#   scripts/gpu.sh nvjpeg-stages [JOBS...]     (default 1 16)
set -u
export LD_LIBRARY_PATH=$PWD/build-gpu/lib
J=$PWD/build-gpu/jetfilter
mkdir -p /tmp/src1080 /tmp/in1080
[ -n "$(find /tmp/in1080 -name "*.jpg" 2>/dev/null | head -1)" ] || { rm -rf /tmp/in1080/*
  python3 scripts/make_1080p.py /tmp/src1080 1920x1080
  for s in $(seq 1 20); do $J noise /tmp/src1080 -o /tmp/in1080/s$s --salt-pepper 0.02 --seed $s --format same -j 16 --quiet; done; }
for j in ${*:-1 16}; do
  for mode in "nvjpeg" "nvjpeg --trust-input" "cpu"; do
    rm -rf /tmp/o_st
    TIMEFORMAT='%R %U %S'
    { time $J denoise /tmp/in1080 -o /tmp/o_st -k 5 --no-sync -j $j --codec $mode --json /tmp/st.json --quiet > /tmp/st.log 2>&1; } 2> /tmp/st.time
    read -r real user sys < /tmp/st.time
    python3 - "$j" "$mode" "$real" "$user" "$sys" <<'PY'
import json, sys
j, mode, real, user, sys_ = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:])
d = json.load(open('/tmp/st.json')); f = [x for x in d['files'] if x['status'] == 'ok']
n = len(d['files'])
mean = lambda k: sum(x['ms'][k] for x in f) / max(1, len(f))
print("-j%-3s %-22s %4d ok of %d  %7.1f img/s  CPU %5.1f ms/img | ms: read %.2f wait %.2f decode %.2f filter %.2f encode %.2f total %.2f"
      % (j, mode, len(f), n, n / real, (user + sys_) * 1e3 / n, mean('read'), mean('wait'), mean('decode'), mean('filter'), mean('encode'), mean('total')))
PY
  done
done
