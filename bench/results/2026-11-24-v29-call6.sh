#!/usr/bin/env bash
# H200, v29 call 6: the shapes2d suite at 1aec0ea (every kernel, every row verified; the H200 does
# not take the fine shape, so its kernels are f2ee7e4's); then whether the fine shape would help the
# H200 too, with call 3's experiment binary (v29exp: XPOSE_EXP_SHAPE=32 XPOSE_EXP_WALK=o, 48
# registers, 5 blocks per SM; XPOSE_EXP_CARVEOUT=100): 8192^2 f64 200 runs per process, and other
# block-aligned f64 views, one process each.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/v && tar xJf .exp-bins/bins.tar.xz -C /tmp/v
tag=2026-11-24-nvidia-h200
/tmp/v/xpose-head bench --suite bench/suites/shapes2d.txt --format json --no-progress --output $out/$tag-shapes2d.json \
  > $out/$tag-shapes2d.txt 2> $out/bench-shapes2d.err
python3 tools/check_targets.py $out/$tag-shapes2d.json > $out/$tag-targets.txt
grep -E "f64|c128|cases meet" $out/$tag-targets.txt
echo "suite $((SECONDS - start)) s"
bin=/tmp/v/v29exp
declare -A cfg=(
  [head]=""
  [s32o]="XPOSE_EXP_SHAPE=32 XPOSE_EXP_WALK=o"
  [s32oC]="XPOSE_EXP_SHAPE=32 XPOSE_EXP_WALK=o XPOSE_EXP_CARVEOUT=100"
)
for n in head s32o s32oC; do
  env ${cfg[$n]} $bin bench --rows 8192 --dtype f64 --kernels memcpy,auto,tiled_padded_rows --reps 200 --rounds 20 --no-progress \
    --format json --output $out/f64-$n.json > /dev/null 2> $out/f64-$n.err
done
printf '4096 4096 f64\n4096 4096 f64 8\n8192 4096 f64\n6000 8192 f64\n2048 16384 f64\n16384 16384 f64\n' > /tmp/f64.txt
for n in head s32oC; do
  env ${cfg[$n]} $bin bench --suite /tmp/f64.txt --kernels memcpy,auto,tiled_padded_rows --no-progress \
    --format json --output $out/views-$n.json > /dev/null 2> $out/views-$n.err
done
python3 - $out/f64-*.json $out/views-*.json <<'P' | tee $out/h200-fine.txt
import json, sys
for f in sys.argv[1:]:
    name = f.split("/")[-1][:-5]
    for c in json.load(open(f))["cases"]:
        t = {r["kernel"]: r for r in c["results"]}
        lab = f'{c["rows"]}x{c["cols"]} b{c["batch"]}'
        m = t["memcpy"].get("median_us") or float("nan")
        def g(k):
            x = t[k]
            return f'{x["median_us"]:9.2f} ({100*m/x["median_us"]:.1f}%)' if x.get("median_us") else f'{x["status"]:>18s}'
        print(f'{lab:20s} {name:12s} auto {g("auto")} {t["auto"]["status"]}  seed {g("tiled_padded_rows")}')
P
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
