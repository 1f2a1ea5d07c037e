#!/usr/bin/env bash
# H100, v26 call 1: whole-sector ownership for the tall u8 shape (store_sectors_full, the halo's two
# row blocks kept transposed beside the tile) against HEAD's 16-byte ownership: `exp` with the
# store loop over a micro-block's 4 columns unrolled by 2, `d1` not unrolled (unrolled fully it
# spills 96 bytes). Builds all three, runs the whole suite on `exp`, then alternating processes on
# the u8 views that take the tall shape, with sector-aligned and 16-bytes-off-sector output controls.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
git diff HEAD -- src > /tmp/exp.patch
git checkout -q HEAD -- src
scripts/setup.sh -G Ninja > $out/build-base.log 2>&1 || { tail -30 $out/build-base.log; exit 1; }
x=build/tools/xpose/xpose
cp $x /tmp/x-base
git apply /tmp/exp.patch
sed -i 's/^#define EXP_D 2/#define EXP_D 1/' src/cuda/tile_kernel.cu
ninja -C build > $out/build-d1.log 2>&1 || { tail -30 $out/build-d1.log; exit 1; }
cp $x /tmp/x-d1
sed -i 's/^#define EXP_D 1/#define EXP_D 2/' src/cuda/tile_kernel.cu
ninja -C build > $out/build-exp.log 2>&1 || { tail -30 $out/build-exp.log; exit 1; }
cp $x /tmp/x-exp
echo "built ($((SECONDS - start)) s)"
ctest --test-dir build --output-on-failure -j 4 > $out/cuda-tests.log 2>&1; grep -E "tests passed|\(Failed\)" $out/cuda-tests.log | head
echo "tests done ($((SECONDS - start)) s)"
cat > /tmp/u8.txt <<'S'
8191 8193 u8
8191 8193 u8 pad_out 17
8191 8193 u8 pad_out 33
16383 16385 u8
12345 6789 u8
100003 1000 u8
1000003 300 u8
4099 8193 u8
16384 16384 u8
S
for round in 1 2 3; do
  for b in base exp d1; do
    /tmp/x-$b bench --suite /tmp/u8.txt --kernels memcpy,auto --no-progress --format json --output $out/u8-$b-$round.json > $out/u8-$b-$round.txt 2>&1
    python3 - $out/u8-$b-$round.json $b $round <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    t = {v["kernel"]: v for v in c["results"]}
    a, m = t.get("auto"), t.get("memcpy")
    if a and m:
        print(f'round {sys.argv[3]} {sys.argv[2]:4} {c["label"]:30} auto {a["median_us"]:8.2f} memcpy {m["median_us"]:8.2f} {100*m["median_us"]/a["median_us"]:6.1f}% {a["status"]} {a["chosen_kernel"]}')
P
  done
done | tee $out/u8-sectors.txt
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
