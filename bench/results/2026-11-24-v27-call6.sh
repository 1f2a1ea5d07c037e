#!/usr/bin/env bash
# v27 call 6 (H100) and call 8 (H200, the same script), at 5055ca5: memcheck, racecheck and
# initcheck on the production tests (small sizes: scripts/gpu_check.sh sanitize); memcheck and
# racecheck at full size on the u8 tests that run the large unaligned u8 shape at 4 blocks per SM
# and the partial-row u8 shape (LargeOddShapes: 2047 x 8193, and on the H200 every view; FewRowTiles:
# 300 and 1000 rows; OutputRowsOffSectors: 2049 x 8193); the shapes2d suite.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $((SECONDS - start)) s"
OUT=$out timeout 200 scripts/gpu_check.sh sanitize
filter='*LargeOddShapes*/tile_u8:*LargeOddShapes*/auto_u8:*FewRowTiles*/tile_u8:*FewRowTiles*/auto_u8:*OutputRowsOffSectors*/tile_u8'
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/xpose_tests_cuda --gtest_filter="$filter" \
    > $out/sanitize-$tool-large-u8.log 2>&1
  echo "full-size u8 $tool: rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|tests? ran|PASSED|FAILED' $out/sanitize-$tool-large-u8.log | tr '\n' ' ')"
done
echo "== shapes2d ($((SECONDS - start)) s)"
build/tools/xpose/xpose bench --suite bench/suites/shapes2d.txt --format json --no-progress --output $out/shapes2d.json > $out/shapes2d.txt 2> $out/shapes2d.err
python3 tools/check_targets.py $out/shapes2d.json > $out/targets.txt; grep -E "MISSED|cases meet" $out/targets.txt
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
