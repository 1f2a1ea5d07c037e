#!/usr/bin/env bash
# H200, v28 call 8, at HEAD (DeviceUnalignedTileTuning for f16 and f32): build; the whole test suite;
# memcheck, racecheck and initcheck on the production tests (small sizes); memcheck and racecheck at
# full size on the 2- and 4-byte views (u16, f32) of LargeOddShapes, FewRowTiles and OutputRowsOffSectors (the
# views that take the new shapes on this GPU).
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
OUT=$out scripts/gpu_check.sh build tests
echo "build + tests $((SECONDS - start)) s"
grep -E "tests passed|\(Failed\)|Skipped" $out/tests.log | head
OUT=$out scripts/gpu_check.sh sanitize
filter='*LargeOddShapes*/tile_f32:*LargeOddShapes*/auto_u16:*FewRowTiles*/tile_f32:*FewRowTiles*/auto_u16:*OutputRowsOffSectors*/auto_f32:*OutputRowsOffSectors*/tile_u16'
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/xpose_tests_cuda --gtest_filter="$filter" \
    > $out/sanitize-$tool-large-f16-f32.log 2>&1
  echo "full-size f16/f32 $tool: rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|tests? ran|PASSED|FAILED' $out/sanitize-$tool-large-f16-f32.log | tr '\n' ' ')"
done
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
