#!/usr/bin/env bash
# The batch against the OpenCV loop, format by format, in alternated runs:
#
#   benchmarks/format_table.sh SET [JETFILTER] [ROUNDS] [JETFILTER_BEFORE]
#
# SET holds one folder per format (benchmarks/format_set.py makes them).
# For every folder, k = 1, 3, 5 and -j 1, 2: `jetfilter denoise DIR -o OUT -k K
# -j J --backend cpu -q 95 --no-sync` (JPEG quality as OpenCV's default) and
# `benchmarks/opencv_batch.py DIR OUT -k K -j J` (Debian's python3-opencv),
# one after the other, ROUNDS times (default 2).  Prints one markdown row per
# cell: wall times, the median ratio jetfilter / OpenCV, output bytes and peak
# resident memory (jetfilter: the report's summary.peak_rss_mb, the whole
# process; OpenCV: the largest worker).  With JETFILTER_BEFORE, an earlier
# build runs in the same rounds (its time and output size in two more columns).
set -euo pipefail
set_dir=$1
jf=${2:-build/jetfilter}
rounds=${3:-2}
before=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
echo "| format | k | -j | jetfilter s | OpenCV s | jetfilter / OpenCV | jetfilter MB | OpenCV MB | jetfilter peak MB | OpenCV worker peak MB |${before:+ before s | before MB |}"
echo "|---|---|---|---|---|---|---|---|---|---|${before:+---|---|}"
for dir in "$set_dir"/*/; do
  fmt=$(basename "$dir")
  for k in 1 3 5; do
    for j in 1 2; do
      jt=() ct=() bt=() ratios=()
      for ((r = 0; r < rounds; r++)); do
        rm -rf "$work/jf" "$work/cv" "$work/report.json"
        t0=$(now)
        "$jf" denoise "$dir" -o "$work/jf" -k "$k" -j "$j" --backend cpu -q 95 --no-sync \
          --json "$work/report.json" --quiet
        t1=$(now)
        cv_line=$(/usr/bin/python3 "$here/opencv_batch.py" "$dir" "$work/cv" -k "$k" -j "$j")
        t2=$(now)
        a=$(echo "$t1 - $t0" | bc) b=$(echo "$t2 - $t1" | bc)
        if [ -n "$before" ]; then # the earlier build's options: no report field it lacks
          rm -rf "$work/before"
          t3=$(now)
          "$before" denoise "$dir" -o "$work/before" -k "$k" -j "$j" --backend cpu -q 95 --no-sync --quiet
          bt+=("$(printf '%.2f' "$(echo "$(now) - $t3" | bc)")")
        fi
        jt+=("$(printf '%.2f' "$a")") ct+=("$(printf '%.2f' "$b")")
        ratios+=("$(echo "scale=4; $a / $b" | bc)")
      done
      ratio=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
      jmb=$(du -sb "$work/jf" | awk '{printf "%.1f", $1 / 1e6}')
      cmb=$(du -sb "$work/cv" | awk '{printf "%.1f", $1 / 1e6}')
      jrss=$(/usr/bin/python3 -c 'import json, sys; print("%.0f" % json.load(open(sys.argv[1]))["summary"]["peak_rss_mb"])' "$work/report.json")
      crss=$(echo "$cv_line" | sed -n 's/.*peak RSS a worker \([0-9]*\) MB.*/\1/p')
      extra=""
      [ -n "$before" ] && extra=" $(IFS=/; echo "${bt[*]}") | $(du -sb "$work/before" | awk '{printf "%.1f", $1 / 1e6}') |"
      echo "| $fmt | $k | $j | $(IFS=/; echo "${jt[*]}") | $(IFS=/; echo "${ct[*]}") | $(printf '%.2f' "$ratio") | $jmb | $cmb | $jrss | $crss |$extra"
    done
  done
done
