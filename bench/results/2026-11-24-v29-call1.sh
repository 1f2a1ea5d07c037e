#!/usr/bin/env bash
# H100, v29 call 1: bytes in flight per SM at the transpose floor (8192^2 f64 and other block-aligned
# f64 views). One workstation-built experiment binary (v29exp: HEAD b7e3549 plus environment
# overrides: XPOSE_EXP_SHAPE=32 puts the element form's large shapes at 32 x 32 with 256 threads (40
# registers, 6 blocks per SM, as the seed), XPOSE_EXP_WALK forces the walk, XPOSE_EXP_BLOCKS=N caps
# the element form's blocks per SM and XPOSE_EXP_SEED_BLOCKS=N the seed tiled_padded_rows's, both
# with unused dynamic shared memory). The seed (40 registers) runs 6 blocks of 256 threads: 48 KiB of
# loads in flight per SM, against auto's 2 x 32 KiB.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/v && tar xJf .exp-bins/bins.tar.xz -C /tmp/v
bin=/tmp/v/v29exp
declare -A cfg=(
  [head]=""
  [s64n1]="XPOSE_EXP_BLOCKS=1"
  [s32c6]="XPOSE_EXP_SHAPE=32 XPOSE_EXP_WALK=cols"
  [s32c5]="XPOSE_EXP_SHAPE=32 XPOSE_EXP_WALK=cols XPOSE_EXP_BLOCKS=5"
  [s32c4]="XPOSE_EXP_SHAPE=32 XPOSE_EXP_WALK=cols XPOSE_EXP_BLOCKS=4"
  [s32c3]="XPOSE_EXP_SHAPE=32 XPOSE_EXP_WALK=cols XPOSE_EXP_BLOCKS=3"
  [s32r6]="XPOSE_EXP_SHAPE=32 XPOSE_EXP_WALK=rows"
  [s32r4]="XPOSE_EXP_SHAPE=32 XPOSE_EXP_WALK=rows XPOSE_EXP_BLOCKS=4"
  [seed5]="XPOSE_EXP_SEED_BLOCKS=5"
  [seed4]="XPOSE_EXP_SEED_BLOCKS=4"
  [seed3]="XPOSE_EXP_SEED_BLOCKS=3"
)
names="head s64n1 s32c6 s32c5 s32c4 s32c3 s32r6 s32r4 seed5 seed4 seed3"
for p in 1 2; do
  for n in $names; do
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
    rounds = 20
    per = len(a["samples_us"]) // rounds
    ahead = sum(statistics.median(a["samples_us"][r * per:(r + 1) * per]) < statistics.median(s["samples_us"][r * per:(r + 1) * per])
                for r in range(rounds))
    print(f'{f.split("/")[-1]:22s} memcpy {m["median_us"]:.2f}  auto {a["median_us"]:.2f} {100*m["median_us"]/a["median_us"]:.2f}% ({a["status"]})  seed {s["median_us"]:.2f} {100*m["median_us"]/s["median_us"]:.2f}% ({s["status"]})'
          f'  auto-seed {a["median_us"] - s["median_us"]:+.2f} us, means {statistics.mean(a["samples_us"]):.2f} / {statistics.mean(s["samples_us"]):.2f}, auto ahead {ahead}/{rounds}')
P
printf '4096 4096 f64\n2048 2048 f64\n6000 8192 f64\n8192 4096 f64\n4096 8192 f64\n8192 8192 f64 pad_in 32 pad_out 32\n4096 4096 f64 8\n16384 16384 f64\n8193 8191 f64\n' > /tmp/f64.txt
for r in 1 2; do
  for n in head s64n1 s32c6 s32c5 s32c4 s32r6 s32r4 seed4; do
    env ${cfg[$n]} $bin bench --suite /tmp/f64.txt --kernels memcpy,auto,tiled_padded_rows --no-progress \
      --format json --output $out/views-$n-$r.json > /dev/null 2> $out/views-$n-$r.err
  done
done
python3 - $out/views-*.json <<'P' | sort | tee $out/views.txt
import json, sys
for f in sorted(sys.argv[1:]):
    name = f.split("/")[-1][6:-5]
    for c in json.load(open(f))["cases"]:
        t = {r["kernel"]: r for r in c["results"]}
        lab = f'{c["rows"]}x{c["cols"]} b{c["batch"]} ld{c["ld_in"]}'
        m = t["memcpy"]["median_us"]
        print(f'{lab:28s} {name:10s} auto {t["auto"]["median_us"]:9.2f} ({100*m/t["auto"]["median_us"]:.1f}%, {t["auto"]["status"]})  seed {t["tiled_padded_rows"]["median_us"]:9.2f} ({100*m/t["tiled_padded_rows"]["median_us"]:.1f}%)')
P
head -3 $out/*.err | head -40
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
