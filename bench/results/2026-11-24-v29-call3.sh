#!/usr/bin/env bash
# H100, v29 call 3: the element form at 32 x 32, 256 threads, 5 blocks per SM (call 2: 8192^2 f64
# 98.3% of memcpy against head's 97.8 and the seed's 97.9) walking column tiles fastest where the
# output rows start on 256-byte blocks, rows fastest elsewhere (6000 x 8192 lost 2.3 points walking
# columns: its output rows of 48000 bytes straddle blocks); the shared-memory carveout set to its
# maximum (XPOSE_EXP_CARVEOUT=100; call 2: the seed at its 6 blocks 368.6 -> 366.9 us with it) on
# the new shape and on the other sizes' tile kernels. Binary v29exp: b7e3549 plus the overrides.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/v && tar xJf .exp-bins/bins.tar.xz -C /tmp/v
bin=/tmp/v/v29exp
declare -A cfg=(
  [head]=""
  [headC]="XPOSE_EXP_CARVEOUT=100"
  [s32o]="XPOSE_EXP_SHAPE=32 XPOSE_EXP_WALK=o"
  [s32oC]="XPOSE_EXP_SHAPE=32 XPOSE_EXP_WALK=o XPOSE_EXP_CARVEOUT=100"
  [seed5]="XPOSE_EXP_SEED_BLOCKS=5"
)
for p in 1 2; do
  for n in s32o s32oC seed5 headC; do
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
cat > /tmp/f64.txt <<'S'
2048 2048 f64
4096 4096 f64
4096 8192 f64
8192 4096 f64
6000 8192 f64
6144 8192 f64
8192 6144 f64
10000 8192 f64
12288 12288 f64
16384 16384 f64
2048 16384 f64
16384 2048 f64
4096 4096 f64 8
8192 8192 f64 2
256 256 f64 1024
1024 1024 f64 16
8192 8192 f64 pad_in 32 pad_out 32
8192 8192 f64 pad_in 0 pad_out 16
S
for n in head s32o s32oC seed5; do
  env ${cfg[$n]} $bin bench --suite /tmp/f64.txt --kernels memcpy,auto,tiled_padded_rows --no-progress \
    --format json --output $out/views-$n.json > /dev/null 2> $out/views-$n.err
done
echo "stage 2 $((SECONDS - start)) s"
python3 - $out/views-*.json <<'P' | sort -t'|' -k1,1 -s | tee $out/views.txt
import json, sys
for f in sorted(sys.argv[1:]):
    name = f.split("/")[-1][6:-5]
    for c in json.load(open(f))["cases"]:
        t = {r["kernel"]: r for r in c["results"]}
        lab = f'{c["rows"]}x{c["cols"]} b{c["batch"]} ld{c["ld_in"]}/{c["ld_out"]}'
        m = t["memcpy"].get("median_us") or float("nan")
        def g(k):
            x = t[k]
            return f'{x["median_us"]:9.2f} ({100*m/x["median_us"]:.1f}%)' if x.get("median_us") else f'{x["status"]:>18s}'
        print(f'{lab:34s}| {name:6s} auto {g("auto")} {t["auto"]["status"]}  seed {g("tiled_padded_rows")}')
P
cat > /tmp/others.txt <<'S'
8192 8192 f32
16384 16384 f32
8191 8193 f32
12345 6789 f32
16384 16384 u8
8191 8193 u8
16384 16384 f16
8192 8192 c128
256 256 f32 1024
256 3136 f32 64
1024 1024 f32
S
for r in 1 2; do
  for n in head headC; do
    env ${cfg[$n]} $bin bench --suite /tmp/others.txt --kernels memcpy,auto --no-progress \
      --format json --output $out/others-$n-$r.json > /dev/null 2> $out/others-$n-$r.err
  done
done
python3 - $out/others-*.json <<'P' | sort -t'|' -k1,1 -s | tee $out/others.txt
import json, sys
for f in sorted(sys.argv[1:]):
    name = f.split("/")[-1][7:-5]
    for c in json.load(open(f))["cases"]:
        t = {r["kernel"]: r for r in c["results"]}
        lab = f'{c["rows"]}x{c["cols"]} {c["dtype"]} b{c["batch"]}'
        m = t["memcpy"].get("median_us") or float("nan")
        a = t["auto"]
        print(f'{lab:28s}| {name:8s} auto {a["median_us"]:9.2f} ({100*m/a["median_us"]:.1f}%) {a["status"]}')
P
head -3 $out/*.err | grep -v "^$\|==>" | head -20
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
