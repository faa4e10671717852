#!/usr/bin/env bash
# On the GPU machine, after scripts/gpu.sh build built build-gpu/ here:
# `jetfilter stream` checked and timed.  Logs under $OUT (or OUTDIR).
#   scripts/gpu.sh stream [OUTDIR]
# 1. CUDA output against the CPU reference's (`--variant cpu`; `auto` on
#    the CPU runs the 8-bit Gaussian in fixed point): the medians byte for
#    byte, the Gaussian within one level (fused multiply-adds on the GPU);
#    odd-sized 4:2:0 and 1080p; median k = 3, 5, 11, gauss sigma 2, luma
#    only, managed memory);
# 2. compute-sanitizer memcheck on a stream;
# 3. 600 frames of 1920x1080 4:2:0 (scripts/make_y4m.py), each case twice:
#    from a file to /dev/null, and through pipes (cat | stream | cat);
#    fps, latency and the stage table (--stats) of each.
set -uo pipefail
cd "$(dirname "$0")/../.."
dest=${1:-${OUT:-/tmp/jf-gpu-stream}}
b=${JF_GPU_BUILD:-build-gpu}
J=$b/jetfilter
t=$(mktemp -d /tmp/jf-stream-XXXXXX)
mkdir -p "$dest"
export LD_LIBRARY_PATH=$PWD/$b/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
python3 scripts/make_y4m.py $t/s1080.y4m 1920 1080 600 30
python3 scripts/make_y4m.py $t/odd.y4m 1023 577 20 25
head -c $(( $(head -1 $t/s1080.y4m | wc -c) + 20 * (6 + 1920 * 1080 * 3 / 2) )) $t/s1080.y4m > $t/short.y4m
{
echo "== 1. CUDA against the CPU, byte for byte"
for args in "-k 3" "-k 5" "-k 11" "-f gauss --sigma 2" "-k 5 --planes luma" "-k 5 --memory managed"; do
  for f in odd short; do
    $J stream --quiet --backend cpu --variant cpu $args -i $t/$f.y4m -o $t/cpu.y4m &&
    $J stream --quiet --backend cuda $args -i $t/$f.y4m -o $t/gpu.y4m &&
    python3 -c "import numpy as n,sys; a,b=(n.fromfile(x,n.uint8).astype(int) for x in sys.argv[1:]); \
print(('identical ' if (a==b).all() else 'max diff %d, %.4f%% of bytes' % (abs(a-b).max(), 100*(a!=b).mean())) if a.size==b.size else 'SIZES DIFFER', end='')" \
      $t/cpu.y4m $t/gpu.y4m; echo "  $f  $args"
  done
done
echo "== 2. compute-sanitizer"
compute-sanitizer --tool memcheck --leak-check full $J stream --quiet --backend cuda -k 5 \
  -i $t/odd.y4m -o /dev/null 2>&1 | tail -2
echo "== 3. 600 frames 1920x1080 4:2:0, $(nproc) cores"
cat $t/s1080.y4m > /dev/null
for r in 1 2; do
  s=$(date +%s%N); cat $t/s1080.y4m | cat | cat > /dev/null; e=$(date +%s%N)
  echo "pipes alone (cat | cat | cat): $(( 600000000000 / (e - s) )) fps"
done
for args in "-k 1" "-k 3" "-k 5" "-k 11" "-f gauss --sigma 2" "-k 5 --planes luma"; do
  for r in 1 2; do
    echo "-- cuda $args, file to /dev/null, run $r"
    $J stream --backend cuda $args -i $t/s1080.y4m -o /dev/null --stats 2>&1
    echo "-- cuda $args, through pipes, run $r"
    cat $t/s1080.y4m | $J stream --backend cuda $args 2>$t/err | cat > /dev/null; cat $t/err
  done
done
for r in 1 2; do
  echo "-- cpu -k 5, file to /dev/null, run $r"
  $J stream --backend cpu -k 5 -i $t/s1080.y4m -o /dev/null 2>&1
done
} 2>&1 | tee "$dest/stream.txt"
rm -rf "$t"
