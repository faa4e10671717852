#!/usr/bin/env bash
# On the GPU machine, after scripts/gpu-check.sh built build-gpu/ here:
# relink with the NPP baseline, run the sweep, draw the plots.
#   scripts/gpu-bench.sh OUTDIR
# Writes OUTDIR/bench_grey.{csv,json,txt}  (default sizes and kernel sizes, grey,
#                                           every variant and NPP, energy per image)
#        OUTDIR/bench_rgb.{csv,json,txt}   (1920x1080 and 3840x2160, RGB)
#        OUTDIR/bench_cpu.{csv,json,txt}   (the CPU backend)
#        OUTDIR/plots/*.png                (scripts/plot_bench.py, where matplotlib exists)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-bench.sh OUTDIR}
mkdir -p "$out"
export JF_SOURCE_DIR=$PWD LD_LIBRARY_PATH=$PWD/build-gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
jf=build-gpu/jetfilter
if scripts/gpu-npp-link.sh > "$out/npp-link.log" 2>&1; then
  jf=build-gpu/jetfilter-npp
else
  echo "gpu-bench: no NPP baseline (see $out/npp-link.log); jetfilter only"
fi
$jf bench --energy --csv "$out/bench_grey.csv" --json "$out/bench_grey.json" | tee "$out/bench_grey.txt"
$jf bench --sizes 1920x1080,3840x2160 --channels 3 --csv "$out/bench_rgb.csv" \
    --json "$out/bench_rgb.json" > "$out/bench_rgb.txt"
$jf bench --backends cpu --csv "$out/bench_cpu.csv" --json "$out/bench_cpu.json" > "$out/bench_cpu.txt"
if python3 -c 'import matplotlib' 2> /dev/null; then
  python3 scripts/plot_bench.py "$out/bench_grey.csv" "$out/bench_rgb.csv" "$out/bench_cpu.csv" \
      --json "$out/bench_grey.json" -o "$out/plots" > /dev/null
else
  echo "gpu-bench: no matplotlib here; plot with scripts/plot_bench.py elsewhere"
fi
echo "gpu-bench: results in $out"
