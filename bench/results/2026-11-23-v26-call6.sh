#!/usr/bin/env bash
# H100, v26 call 6: why does every addition to the tall u8 kernel cost far more than its
# instructions? ncu on 8191 x 8193 u8 (`auto` -> the tall shape) for HEAD (`base`) and call 1's
# whole-sector builds (`exp`: column loop unrolled by 2, `d1`: not unrolled; patch
# 2026-11-23-whole-sector-transposed-halo-experiment.patch): duration, instructions, DRAM
# throughput, and the warp stall reasons (an instruction-cache hypothesis: stalled_no_instruction).
set -uo pipefail
out=$OUT
start=$SECONDS
x=build/tools/xpose/xpose
which cuobjdump nvdisasm ncu 2>&1 | head -3
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
cp $x /tmp/x-base
cp src/cuda/tile_kernel.cu src/cuda/tuning.hpp /tmp/
git apply --include='src/*' bench/results/2026-11-23-whole-sector-transposed-halo-experiment.patch || exit 1
touch src/cuda/tile_kernel.cu src/cuda/tuning.hpp
ninja -C build xpose_cli > $out/build-exp.log 2>&1 || { tail -30 $out/build-exp.log; exit 1; }
cp $x /tmp/x-exp
sed -i 's/^#define EXP_D 2/#define EXP_D 1/' src/cuda/tile_kernel.cu
ninja -C build xpose_cli > $out/build-d1.log 2>&1 || { tail -30 $out/build-d1.log; exit 1; }
cp $x /tmp/x-d1
cp /tmp/tile_kernel.cu /tmp/tuning.hpp src/cuda/ && touch src/cuda/tile_kernel.cu src/cuda/tuning.hpp
echo "built ($((SECONDS - start)) s)"
metrics=gpu__time_duration.sum,sm__inst_executed.sum,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__pcsamp_sample_count
stalls=$(for r in no_instruction long_scoreboard barrier wait short_scoreboard mio_throttle lg_throttle math_pipe_throttle not_selected selected branch_resolving drain membar dispatch_stall imc_miss misc tex_throttle sleeping; do printf 'smsp__average_warps_issue_stalled_%s_per_issue_active.ratio,' $r; done)
for b in base exp d1; do
  for view in "" "--pad-out 33"; do
    ncu --clock-control none --metrics $metrics,${stalls%,} -k regex:tile_transpose --launch-count 1 --csv --page raw \
      /tmp/x-$b bench --rows 8191 --cols 8193 --dtype u8 $view --kernels auto --reps 1 --warmup 0 --rounds 1 --no-progress \
      > $out/ncu-$b${view:+-pad33}.csv 2> $out/ncu-$b${view:+-pad33}.err
    python3 - $out/ncu-$b${view:+-pad33}.csv "$b${view:+ pad_out 33}" <<'P'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
head = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
names, units, vals = rows[head], rows[head + 1], rows[head + 2]
d = dict(zip(names, vals))
short = lambda k: k.replace("smsp__average_warps_issue_stalled_", "").replace("_per_issue_active.ratio", "")
print(f"{sys.argv[2]:16} time {d['gpu__time_duration.sum']} inst {d['sm__inst_executed.sum']} dram% {d['dram__throughput.avg.pct_of_peak_sustained_elapsed']} regs {d['launch__registers_per_thread']}")
st = sorted(((float(v.replace(',', '')), short(k)) for k, v in d.items() if k.startswith("smsp__average_warps_issue_stalled")), reverse=True)
print("   stalls per issue: " + ", ".join(f"{n} {v:.2f}" for v, n in st[:8]))
P
  done
done | tee $out/ncu-summary.txt
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
