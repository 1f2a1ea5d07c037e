#!/usr/bin/env bash
# H200, v27 call 2: blocks per SM and threads per block for the unaligned f32 and u8 shapes and
# the c128 shape on the H200, whose odd views sit far below the H100's (f32 86%, u8 81%, c128 92%).
# Binaries built on the workstation from 8c8d4da with one edit each to src/cuda/tuning.hpp, carried
# in .exp-bins/ (stripped): base (HEAD); blk (unaligned f32 3 blocks per SM, unaligned u8 4, c128
# 4); w512 (unaligned f32 and u8 at 512 threads and 2 blocks, c128 64 x 32 at 512 threads and 2
# blocks). `tile` against memcpy, alternating processes, 2 rounds.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/v && tar xJf .exp-bins/bins.tar.xz -C /tmp/v && ls /tmp/v
for b in /tmp/v/*; do $b --version > /dev/null 2>&1 || { echo "$b does not run:"; $b --version 2>&1 | head -3; exit 1; }; done
summary() {  # json binary round
  python3 - "$@" <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    t = {v["kernel"]: v for v in c["results"]}
    a = t.get("auto") or t.get("tile"); m = t.get("memcpy")
    pct = f'{100*m["median_us"]/a["median_us"]:6.1f}%' if m and m.get("median_us") else "      "
    print(f'round {sys.argv[3]} {sys.argv[2]:6} {c["label"]:30} {a["kernel"]} {a["median_us"]:8.2f} us {pct} {a["status"]}')
P
}
printf '8191 8193 f32\n12345 6789 f32\n300 1000003 f32\n8191 8193 u8\n12345 6789 u8\n16383 16385 u8\n8192 8192 c128\n' > /tmp/cases.txt
for round in 1 2; do
  for b in base blk w512; do
    /tmp/v/$b bench --suite /tmp/cases.txt --kernels memcpy,tile --no-progress --format json --output $out/var-$b-$round.json > /dev/null 2>&1
    summary $out/var-$b-$round.json $b $round
  done
done | tee $out/variants.txt
sort -k4,4 -k3,3 -s $out/variants.txt | awk '{print $3, $4, $6, $8}' | column -t
# ncu of HEAD's kernels on the H200's two worst odd views: is the u8 kernel issue-bound here?
metrics=gpu__time_duration.sum,sm__inst_executed.sum,sm__inst_issued.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
stalls=$(for r in long_scoreboard barrier wait short_scoreboard mio_throttle lg_throttle math_pipe_throttle not_selected selected drain dispatch_stall no_instruction; do printf 'smsp__average_warps_issue_stalled_%s_per_issue_active.ratio,' $r; done)
for dt in u8 f32; do
  ncu --clock-control none --metrics $metrics,${stalls%,} -k regex:tile_transpose --launch-count 1 --csv --page raw \
    /tmp/v/base bench --rows 8191 --cols 8193 --dtype $dt --kernels tile --reps 1 --warmup 0 --rounds 1 --no-progress \
    > $out/ncu-$dt.csv 2> $out/ncu-$dt.err
  python3 - $out/ncu-$dt.csv "8191x8193 $dt" <<'P'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
head = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
d = dict(zip(rows[head], rows[head + 2]))
short = lambda k: k.replace("smsp__average_warps_issue_stalled_", "").replace("_per_issue_active.ratio", "")
print(f"{sys.argv[2]:14} time {d['gpu__time_duration.sum']} inst {d['sm__inst_executed.sum']} issue% {d['sm__inst_issued.avg.pct_of_peak_sustained_active']} dram% {d['dram__throughput.avg.pct_of_peak_sustained_elapsed']} warps% {d['sm__warps_active.avg.pct_of_peak_sustained_active']} regs {d['launch__registers_per_thread']} occ-limit regs/smem {d['launch__occupancy_limit_registers']}/{d['launch__occupancy_limit_shared_mem']}")
st = sorted(((float(v.replace(',', '')), short(k)) for k, v in d.items() if k.startswith("smsp__average_warps_issue_stalled")), reverse=True)
print("   stalls per issue: " + ", ".join(f"{n} {v:.2f}" for v, n in st[:8]))
P
done | tee $out/ncu-summary.txt
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
