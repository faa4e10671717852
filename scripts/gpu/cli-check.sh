#!/usr/bin/env bash
# The CLI on the GPU against the CLI on the CPU: for every border mode and
# kernel size, `denoise --backend cuda` must write byte-identical median
# output to `--backend cpu`, for both CUDA variants, on the sample photos
# (PNG output, so the encoder adds no difference of its own; JPEGs decoded
# on the CPU in both, since nvJPEG's pixels differ from libjpeg-turbo's).
#   scripts/gpu.sh cli-check [JETFILTER]
set -uo pipefail
cd "$(dirname "$0")/../.."
jf=${1:-build/jetfilter}
work=$(mktemp -d /tmp/jf-cli-check-XXXXXX)
pass=0 fail=0
for b in zero replicate reflect mirror; do
  for k in 1 3 5 7 9 11 15 21 31; do
    $jf denoise samples/images -o "$work/cpu" --format png -k "$k" -b "$b" --backend cpu \
        -j 6 --quiet
    for variant in global shared; do
      $jf denoise samples/images -o "$work/$variant" --format png -k "$k" -b "$b" \
          --backend cuda --variant "$variant" --codec cpu -j 6 --quiet
      if diff -r -q "$work/cpu" "$work/$variant" > /dev/null; then
        pass=$((pass + 1))
      else
        fail=$((fail + 1)); echo "DIFFERS: border $b k $k variant $variant"
      fi
    done
    rm -rf "$work/cpu" "$work/global" "$work/shared"
  done
done
# a device list naming a device the machine lacks is refused before any file
n=$(nvidia-smi -L | wc -l)
$jf denoise samples/images -o "$work/none" --device "0,$n" --quiet 2> "$work/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "no device $n (this machine has $n" "$work/err" && [ ! -e "$work/none" ]; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "--device 0,$n: exit $rc, $(cat "$work/err")"
fi
rm -rf "$work"
echo "cli check: $pass passed, $fail failed (median of 6 photos, --backend cuda vs --backend cpu, byte-identical PNG)"
[ "$fail" -eq 0 ]
