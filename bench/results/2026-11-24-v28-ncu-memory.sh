#!/usr/bin/env bash
# v28: what the memory system does for the odd f32 view on this GPU, against the aligned square and
# the odd u8 view (the H200 runs odd f32 at 85.5% of memcpy, the H100 at 96). ncu, one launch of
# `auto` per view, memory counters (DRAM bytes against the bytes the view must move, L2 hit rates,
# sectors). XPOSE names the binary (default build/tools/xpose/xpose, from scripts/setup.sh).
set -uo pipefail
out=${OUT:-/tmp/ncu-memory}; mkdir -p $out
xpose=${XPOSE:-build/tools/xpose/xpose}
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sector_op_read_hit_rate.pct,lts__t_sector_op_write_hit_rate.pct,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,launch__registers_per_thread,launch__grid_size
for view in "8191 8193 f32" "12345 6789 f32" "8192 8192 f32" "8191 8193 u8"; do
  set -- $view
  ncu --clock-control none --kernel-name regex:'tile_transpose_kernel|element' --launch-skip 2 --launch-count 1 --metrics $M \
    $xpose bench --rows $1 --cols $2 --dtype $3 --kernels auto --reps 3 --warmup 1 --rounds 1 --no-progress \
    > $out/ncu-$1x$2-$3.txt 2>&1
  echo "== $1 x $2 $3 (input $(( $1 * $2 * ${3#[uf]} / 8 )) bytes)"
  grep -E "^\s+(gpu__|dram__|lts__|l1tex__|sm__|smsp__|launch__)" $out/ncu-$1x$2-$3.txt | awk '{print $1, $(NF-1), $NF}'
done
