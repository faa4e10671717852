#!/usr/bin/env bash
# The main job on the samples: make noisy copies of samples/images, denoise
# them with a 3x3 median, and print PSNR/SSIM before and after for each file.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
jf=build/jetfilter
work=$(mktemp -d /tmp/jetfilter-demo-XXXXXX)
echo "demo: working in $work"
$jf noise samples/images -o "$work/noisy" --salt-pepper 0.05 --seed 1
$jf denoise "$work/noisy" -o "$work/clean" -f median -k 3 --reference samples/images \
    --json "$work/report.json" "$@"
echo
printf '%-24s %10s %10s   %8s %8s\n' file "PSNR in" "PSNR out" "SSIM in" "SSIM out"
for orig in samples/images/*.jpg samples/images/*.png; do
  name=$(basename "$orig")
  stem=${name%.*}  # noise writes PNG, so retina.jpg's copies are retina.png
  read -r pin sin < <($jf metrics "$orig" "$work/noisy/$stem.png" --json |
      sed -E 's/.*"psnr_db":([^,]*),"ssim":([^,]*),.*/\1 \2/')
  read -r pout sout < <($jf metrics "$orig" "$work/clean/$stem.png" --json |
      sed -E 's/.*"psnr_db":([^,]*),"ssim":([^,]*),.*/\1 \2/')
  printf '%-24s %7.2f dB %7.2f dB   %8.4f %8.4f\n' "$name" "$pin" "$pout" "$sin" "$sout"
done
echo
echo "demo: outputs in $work/clean, per-file JSON in $work/report.json"
