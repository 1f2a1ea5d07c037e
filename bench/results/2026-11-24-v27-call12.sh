#!/usr/bin/env bash
# H100, v27 call 12, at HEAD (the tall u8 shape from 9 tiles per SM): build; the whole test suite;
# memcheck and racecheck at full size on the u8 views of the tall and large shapes
# (LargeOddShapes, FewRowTiles, OutputRowsOffSectors); the views around the new threshold, `auto`
# against memcpy, 2 rounds.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $((SECONDS - start)) s"
ctest --test-dir build --output-on-failure -j 4 > $out/cuda-tests.log 2>&1; grep -E "tests passed|\(Failed\)" $out/cuda-tests.log | head
filter='*LargeOddShapes*/tile_u8:*LargeOddShapes*/auto_u8:*FewRowTiles*/tile_u8:*FewRowTiles*/auto_u8:*OutputRowsOffSectors*/tile_u8'
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/xpose_tests_cuda --gtest_filter="$filter" \
    > $out/sanitize-$tool-large-u8.log 2>&1
  echo "full-size u8 $tool: rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|tests? ran|PASSED|FAILED' $out/sanitize-$tool-large-u8.log | tr '\n' ' ')"
done
printf '4099 8193 u8\n2049 16385 u8\n5121 8193 u8\n3001 16385 u8\n8191 8193 u8\n' > /tmp/u8.txt
for round in 1 2; do
  build/tools/xpose/xpose bench --suite /tmp/u8.txt --kernels memcpy,auto --no-progress --format json --output $out/u8-$round.json > /dev/null 2>&1
  python3 - $out/u8-$round.json $round <<'P'
import json, sys
for c in json.load(open(sys.argv[1]))["cases"]:
    t = {v["kernel"]: v for v in c["results"]}
    a, m = t["auto"], t["memcpy"]
    print(f'round {sys.argv[2]} {c["label"]:16} auto {a["median_us"]:8.2f} us {100*m["median_us"]/a["median_us"]:6.1f}% {a["status"]}')
P
done | tee $out/u8-threshold.txt
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
