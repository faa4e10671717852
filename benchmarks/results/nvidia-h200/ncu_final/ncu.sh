#!/usr/bin/env bash
# counters for the goals not met: one launch each, --random input
set -uo pipefail
export JF_SOURCE_DIR=$PWD LD_LIBRARY_PATH=$PWD/build-gpu/lib XDG_CACHE_HOME=/nonexistent
o=$OUT/ncu; mkdir -p $o; scripts/gpu-npp-link.sh > $o/npp-link.log 2>&1 || echo "npp link failed"
m=gpu__time_duration.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio,l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,dram__bytes.sum
prof() { # name kernel-regex bench-args...
  local name=$1 kr=$2; shift 2
  ncu --clock-control none --metrics $m -k "regex:$kr" --launch-skip 2 --launch-count 1 --csv \
      build-gpu/jetfilter-npp bench --backend cuda --reps 3 --warmup 0 --random "$@" > $o/$name.csv 2> $o/$name.err
  echo "$name rc=$?"
}
prof median_k3_grey_4k median_fast --filter median -k 3 --size 3840x2160 --channels 1 --variant fast
prof median_k3_grey_8k median_fast --filter median -k 3 --size 7680x4320 --channels 1 --variant fast
prof median_k3_rgb_8k median_fast --filter median -k 3 --size 7680x4320 --channels 3 --variant fast
prof npp_median_k3_grey_8k '(?i)median' --filter median -k 3 --size 7680x4320 --channels 1 --variant global
prof conv_k3_grey_8k conv_fast --filter conv -k 3 --size 7680x4320 --channels 1 --variant fast
prof conv_k3_rgb_1080 conv_fast --filter conv -k 3 --size 1920x1080 --channels 3 --variant fast
prof conv_k5_rgb_1080 conv_fast --filter conv -k 5 --size 1920x1080 --channels 3 --variant fast
prof npp_conv_k3_grey_8k '(?i)filter' --filter conv -k 3 --size 7680x4320 --channels 1 --variant global
prof conv_k15_rgb_4k conv_ --filter conv -k 15 --size 3840x2160 --channels 3 --variant fast
prof conv_k31_rgb_4k conv_ --filter conv -k 31 --size 3840x2160 --channels 3 --variant fast
prof conv_k31_grey_1080 conv_ --filter conv -k 31 --size 1920x1080 --channels 1 --variant fast
prof npp_conv_k31_rgb_4k '(?i)filter' --filter conv -k 31 --size 3840x2160 --channels 3 --variant global
prof pad_grey_8k pad --filter pad -k 3 --size 7680x4320 --channels 1
tar czf $OUT/ncu.tar.gz -C $OUT ncu
