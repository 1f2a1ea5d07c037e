#!/usr/bin/env bash
# H200, v26 call 2. (1) The whole-sector tall u8 kernel of call 1 (`sect`: EXP_D 1, the column loop
# not unrolled) on the H200, where output rows off 256-byte blocks cost more than on the H100
# (docs/kernels.md v20), against HEAD (`base`: the large unaligned u8 shape there) and HEAD with
# the tall shape enabled on the H200 (`tall`). (2) The prepared f16 experiment
# (2026-11-23-v26-next-h200-f16-blocks.sh): the aligned large f16 tile at 4 blocks per SM (`f16e4`).
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
git diff HEAD -- src > /tmp/exp.patch
x=build/tools/xpose/xpose
tall_on_h200() { sed -i 's/kMeasuredFasterOn = "H100 80GB HBM3"/kMeasuredFasterOn = "H200"/' src/cuda/tuning.hpp; }
git checkout -q HEAD -- src
scripts/setup.sh -G Ninja > $out/build-base.log 2>&1 || { tail -30 $out/build-base.log; exit 1; }
cp $x /tmp/x-base
tall_on_h200
ninja -C build > $out/build-tall.log 2>&1 || { tail -30 $out/build-tall.log; exit 1; }
cp $x /tmp/x-tall
git checkout -q HEAD -- src && git apply /tmp/exp.patch && sed -i 's/^#define EXP_D 2/#define EXP_D 1/' src/cuda/tile_kernel.cu && tall_on_h200
grep -c "H200" src/cuda/tuning.hpp; grep -n "^#define EXP_D" src/cuda/tile_kernel.cu
ninja -C build > $out/build-sect.log 2>&1 || { tail -30 $out/build-sect.log; exit 1; }
cp $x /tmp/x-sect
git checkout -q HEAD -- src
sed -i 's/kRows = 64, kCols = 128, kThreads = 256, kMinBlocks = 3; };/kRows = 64, kCols = 128, kThreads = 256, kMinBlocks = 4; };/' src/cuda/tuning.hpp
grep -n "TileTuning<2, false>" src/cuda/tuning.hpp | head -1
ninja -C build > $out/build-f16e4.log 2>&1 || { tail -30 $out/build-f16e4.log; exit 1; }
cp $x /tmp/x-f16e4
git checkout -q HEAD -- src
echo "built ($((SECONDS - start)) s)"
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
printf '8191 8193 u8\n8191 8193 u8 pad_out 17\n8191 8193 u8 pad_out 33\n16383 16385 u8\n12345 6789 u8\n100003 1000 u8\n' > /tmp/u8.txt
for round in 1 2; do
  for b in base tall sect; do
    /tmp/x-$b bench --suite /tmp/u8.txt --kernels memcpy,auto --no-progress --format json --output $out/u8-$b-$round.json > /dev/null 2>&1
    summary $out/u8-$b-$round.json $b $round
  done
done | tee $out/u8-sectors-h200.txt
echo "u8 done ($((SECONDS - start)) s)"
printf '16384 16384 f16\n8192 8192 f16\n256 256 f16 1024\n3136 256 f16 64\n256 3136 f16 64\n' > /tmp/f16.txt
for round in 1 2; do
  for b in base f16e4; do
    /tmp/x-$b bench --suite /tmp/f16.txt --kernels memcpy,tile --no-progress --format json --output $out/f16-$b-$round.json > /dev/null 2>&1
    summary $out/f16-$b-$round.json $b $round
  done
done | tee $out/f16-inflight.txt
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
