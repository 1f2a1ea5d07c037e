#!/usr/bin/env bash
# H200, v28 call 14: the CUDA test binary of 2c442aa (built on the workstation, stripped, carried in
# .exp-bins) on the views whose routing 2c442aa changed (the partial-row shapes per size) and the
# H200's own unaligned shapes: the shape, odd, strided and batch tests of `tile` and `auto`, every
# element size, at full size.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
xz -dkc .exp-bins/xpose_tests_cuda.xz > /tmp/xpose_tests_cuda && chmod +x /tmp/xpose_tests_cuda
filter='*LargeOddShapes*/tile_*:*LargeOddShapes*/auto_*:*FewRowTiles*/tile_*:*FewRowTiles*/auto_*:*OutputRowsOffSectors*/tile_*:*OutputRowsOffSectors*/auto_*'
filter+=':*OddShapes*/tile_*:*OddShapes*/auto_*:*Strided*/tile_*:*Strided*/auto_*:*Batches*/tile_*:*Batches*/auto_*:PropertyCudaTile.*'
/tmp/xpose_tests_cuda --gtest_filter="$filter" > $out/h200-shape-tests.log 2>&1
echo "rc $? $(grep -E '^\[  (PASSED|FAILED)|tests? ran' $out/h200-shape-tests.log | tr '\n' ' ')"
echo "done $((SECONDS - start)) s"
