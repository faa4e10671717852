#!/usr/bin/env bash
# On the GPU machine, after scripts/gpu.sh build built build-gpu/ here:
# relink with the NPP baseline, run the sweep, draw the plots.
#   scripts/gpu.sh bench OUTDIR
# Writes OUTDIR/bench_grey.{csv,json,txt}    (the default sizes 345x194 .. 7680x4320, grey,
#                                             k = 3..11, every variant and NPP, energy per image)
#        OUTDIR/bench_rgb.{csv,json,txt}     (1920x1080, 3840x2160, 7680x4320 RGB, k = 3..11)
#        OUTDIR/bench_conv_large_k.*         (convolution, arbitrary and Gaussian weights,
#                                             k = 15..63, grey and RGB, against NPP)
#        OUTDIR/bench_median_large_k.*       (median k = 15..63, grey and RGB; without NPP,
#                                             whose median grows with k^2: seconds a call at 8K)
#        OUTDIR/bench_pad_ssim.*             (jf_pad and SSIM, grey and RGB)
#        OUTDIR/bench_cpu.{csv,json,txt}     (the CPU backend)
#        OUTDIR/plots/*.png                  (scripts/plot_bench.py, where matplotlib exists)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: scripts/gpu.sh bench OUTDIR}
mkdir -p "$out"
export JF_SOURCE_DIR=$PWD LD_LIBRARY_PATH=$PWD/build-gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
jf=build-gpu/jetfilter
if scripts/gpu.sh npp-link > "$out/npp-link.log" 2>&1; then
  jfn=build-gpu/jetfilter-npp
else
  jfn=$jf
  echo "gpu-bench: no NPP baseline (see $out/npp-link.log); jetfilter only"
fi
big=1920x1080,3840x2160,7680x4320
run() { # name, tool, bench options...
  local name=$1 tool=$2; shift 2
  local t0=$SECONDS
  $tool bench "$@" --csv "$out/$name.csv" --json "$out/$name.json" > "$out/$name.txt"
  echo "gpu-bench: $name in $((SECONDS - t0)) s"
}
run bench_grey $jfn --energy --variant global,shared,fast,auto
run bench_rgb $jfn --sizes $big --channels 3 --variant global,shared,fast,auto
run bench_conv_large_k $jfn --filter conv,gauss --sizes $big --channels 1,3 -k 15,21,31,45,63 \
    --variant fast --reps 10
run bench_median_large_k $jf --filter median --sizes $big --channels 1,3 -k 15,21,31,45,63 \
    --variant auto --reps 10
run bench_pad_ssim $jf --filter pad,ssim --sizes $big --channels 1,3 -k 3,15
run bench_cpu $jf --backends cpu
csvs=("$out"/bench_{grey,rgb,conv_large_k,median_large_k,pad_ssim,cpu}.csv)
if python3 -c 'import matplotlib' 2> /dev/null; then
  python3 scripts/plot_bench.py "${csvs[@]}" --json "$out/bench_grey.json" -o "$out/plots" > /dev/null
else
  echo "gpu-bench: no matplotlib here; plot with scripts/plot_bench.py ${csvs[*]} -o PLOTDIR"
fi
echo "gpu-bench: results in $out"
