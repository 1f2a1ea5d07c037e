#!/usr/bin/env bash
# H200, v26 call 9 (call 7 on the H200, where u8 views take the large unaligned shape): the u8 halo kept transposed beside the tile (2026-11-23-v26-transposed-u8-halo.patch,
# `th`): the first lane of each output row reads its halo vector with one 16-byte shared load
# instead of 16 word loads and 12 byte permutes per column (ncu, call 6: the tall u8 kernel is
# partly issue-bound). Builds HEAD (`base`) and `th`, times the unaligned u8 views in alternating
# processes, then runs the CUDA kernel tests of u8 on `th`.
set -uo pipefail
out=$OUT
start=$SECONDS
x=build/tools/xpose/xpose
patch=bench/results/2026-11-23-v26-transposed-u8-halo.patch
git apply -R $patch || { echo "reverse apply failed"; exit 1; }
touch src/cuda/tile_kernel.cu
scripts/setup.sh -G Ninja > $out/build-base.log 2>&1 || { tail -30 $out/build-base.log; exit 1; }
cp $x /tmp/x-base
git apply $patch && touch src/cuda/tile_kernel.cu
ninja -C build > $out/build-th.log 2>&1 || { tail -30 $out/build-th.log; exit 1; }
cp $x /tmp/x-th
echo "built ($((SECONDS - start)) s)"
cat > /tmp/u8.txt <<'S'
8191 8193 u8
16383 16385 u8
12345 6789 u8
4099 8193 u8
100003 1000 u8
3001 5003 u8
300 1000003 u8
S
for round in 1 2; do
  for b in base th; do
    /tmp/x-$b bench --suite /tmp/u8.txt --kernels memcpy,auto --no-progress --format json --output $out/u8-$b-$round.json > /dev/null 2>&1
    python3 - $out/u8-$b-$round.json $b $round <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    t = {v["kernel"]: v for v in c["results"]}
    a, m = t["auto"], t.get("memcpy")
    pct = f'{100*m["median_us"]/a["median_us"]:6.1f}%' if m and m.get("median_us") else "       "
    print(f'round {sys.argv[3]} {sys.argv[2]:4} {c["label"]:28} {a["median_us"]:8.2f} us {pct} {a["status"]}')
P
  done
done | tee $out/u8-th.txt
echo "timed ($((SECONDS - start)) s)"
timeout $((590 - (SECONDS - start))) build/tests/xpose_tests_cuda --gtest_filter='*_u8*:*U8*:*u8*' > $out/u8-tests.log 2>&1
echo "u8 tests rc $?: $(grep -E '^\[  (PASSED|FAILED)' $out/u8-tests.log | tr '\n' ' ')"
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
