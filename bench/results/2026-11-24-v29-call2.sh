#!/usr/bin/env bash
# H100, v29 call 2: the seed at 5 blocks per SM (call 1: 8192^2 f64 365.6 us, 98.7% of memcpy, against
# 368.6 at its natural 6) on the other block-aligned f64 views; whether the carveout alone moves it;
# the element form at 32 x 32 and 256 threads with 48 registers (5 blocks per SM, no spills; call 1's
# 40-register build spilled and ran 87%). Binary v29exp: b7e3549 plus the environment overrides of
# call 1, exp32 at __launch_bounds__(256, 5).
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/v && tar xJf .exp-bins/bins.tar.xz -C /tmp/v
bin=/tmp/v/v29exp
declare -A cfg=(
  [head]=""
  [seed5]="XPOSE_EXP_SEED_BLOCKS=5"
  [seed6c]="XPOSE_EXP_SEED_BLOCKS=6"
  [s32c]="XPOSE_EXP_SHAPE=32 XPOSE_EXP_WALK=cols"
  [s32r]="XPOSE_EXP_SHAPE=32 XPOSE_EXP_WALK=rows"
  [s32c4]="XPOSE_EXP_SHAPE=32 XPOSE_EXP_WALK=cols XPOSE_EXP_BLOCKS=4"
)
for p in 1 2; do
  for n in head seed5 seed6c s32c s32r s32c4; do
    kernels=memcpy,auto,tiled_padded_rows; [ $((p % 2)) = 0 ] && kernels=memcpy,tiled_padded_rows,auto
    env ${cfg[$n]} $bin bench --rows 8192 --dtype f64 --kernels $kernels --reps 200 --rounds 20 --no-progress \
      --format json --output $out/f64-$n-$p.json > /dev/null 2> $out/f64-$n-$p.err
  done
done
echo "stage 1 $((SECONDS - start)) s"
python3 - $out/f64-*.json <<'P' | tee $out/f64-floor.txt
import json, sys, statistics
for f in sorted(sys.argv[1:]):
    c = json.load(open(f))["cases"][0]
    t = {r["kernel"]: r for r in c["results"]}
    a, s, m = t["auto"], t["tiled_padded_rows"], t["memcpy"]
    if not a.get("median_us") or not s.get("median_us"):
        print(f.split("/")[-1], "failed", a["status"], s["status"]); continue
    print(f'{f.split("/")[-1]:22s} memcpy {m["median_us"]:.2f}  auto {a["median_us"]:.2f} {100*m["median_us"]/a["median_us"]:.2f}% ({a["status"]})  seed {s["median_us"]:.2f} {100*m["median_us"]/s["median_us"]:.2f}% ({s["status"]})'
          f'  means {statistics.mean(a["samples_us"]):.2f} / {statistics.mean(s["samples_us"]):.2f}')
P
printf '4096 4096 f64\n2048 2048 f64\n6000 8192 f64\n8192 4096 f64\n4096 8192 f64\n8192 8192 f64 pad_in 32 pad_out 32\n4096 4096 f64 8\n16384 16384 f64\n12288 12288 f64\n' > /tmp/f64.txt
for n in head seed5 s32c s32r; do
  env ${cfg[$n]} $bin bench --suite /tmp/f64.txt --kernels memcpy,auto,tiled_padded_rows --no-progress \
    --format json --output $out/views-$n.json > /dev/null 2> $out/views-$n.err
done
python3 - $out/views-*.json <<'P' | sort | tee $out/views.txt
import json, sys
for f in sorted(sys.argv[1:]):
    name = f.split("/")[-1][6:-5]
    for c in json.load(open(f))["cases"]:
        t = {r["kernel"]: r for r in c["results"]}
        lab = f'{c["rows"]}x{c["cols"]} b{c["batch"]} ld{c["ld_in"]}'
        m = t["memcpy"].get("median_us") or float("nan")
        def g(k):
            x = t[k]
            return f'{x["median_us"]:9.2f} ({100*m/x["median_us"]:.1f}%)' if x.get("median_us") else f'{x["status"]:>18s}'
        print(f'{lab:28s} {name:7s} auto {g("auto")}  seed {g("tiled_padded_rows")}')
P
head -3 $out/*.err | grep -v "^$" | head -30
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
