#!/usr/bin/env bash
# Two builds of jetfilter on the same JPEGs, alternating run by run
# (so that a machine's drift falls on both): 400 and 2000 1080p files,
# median k = 5, JPEG out, -j 16, `--codec nvjpeg` with and without the
# check, a fresh process each.  Wall time, images/s and a core's ms an image.
# Carry both binaries (e.g. the old one under .device-carry/) and build-gpu/lib.
#   scripts/gpu.sh ab OLD_JETFILTER NEW_JETFILTER [ROUNDS]   (default 4)
set -u
[ $# -ge 2 ] || { sed -n '2,7p' "$0"; exit 2; }
export LD_LIBRARY_PATH=$PWD/build-gpu/lib
A=$(realpath "$1") B=$(realpath "$2") rounds=${3:-4}
J=$B
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores: $(nproc)"
. "$(dirname "$0")/jpeg-sets.inc"
make_set /tmp/in1080 1920x1080 20
make_2000
run() { # LABEL BIN SET ARGS...
  local label=$1 bin=$2 set=$3; shift 3; rm -rf /tmp/o_ab
  TIMEFORMAT='%R %U %S'
  { time $bin denoise /tmp/$set -o /tmp/o_ab -k 5 --no-sync -j 16 --quiet "$@"; } 2> /tmp/ab.time
  read -r real user sys < /tmp/ab.time
  n=$(find /tmp/o_ab -type f | wc -l)
  awk -v l="$label" -v s="$set" -v r="$real" -v u="$user" -v y="$sys" -v n="$n" \
    'BEGIN {printf "%-8s %-7s %5d files %6.2f s %7.1f img/s  cpu %5.2f ms/img\n", l, s, n, r, n / r, (u + y) * 1000 / n}'
}
for r in $(seq "$rounds"); do
  for set in in1080 in2000; do
    run old $A $set --codec nvjpeg
    run new $B $set --codec nvjpeg
    run old-trust $A $set --codec nvjpeg --trust-input
    run new-trust $B $set --codec nvjpeg --trust-input
  done
done
