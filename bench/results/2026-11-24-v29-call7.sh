#!/usr/bin/env bash
# H100, v29 call 7, at 862b983 (the carveout asked per kernel, both walks of the fine shape):
# workstation-built binaries (stripped, carried as .exp-bins/bins.tar.xz). The whole CUDA test binary;
# memcheck, racecheck and initcheck on the production tests (small sizes); block-aligned f64 views
# walked both ways, `auto` against the seed, one process.
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
mkdir -p /tmp/v && tar xJf .exp-bins/bins.tar.xz -C /tmp/v
/tmp/v/xpose_tests_cuda > $out/cuda-tests.log 2>&1; echo "cuda tests rc $?"
tail -3 $out/cuda-tests.log
echo "tests $((SECONDS - start)) s"
production='*/tile_*:*/auto_*:*/deinterleave_*:*/interleave_*:*/contiguous_copy_*:PropertyCudaTile.*'
for kernel in tile auto interleave deinterleave contiguous_copy; do production+=":PropertyCuda/RandomTransposesCuda.*/$kernel"; done
for tool in memcheck racecheck initcheck; do
  XPOSE_TEST_SMALL=1 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/v/xpose_tests_cuda --gtest_filter="$production" \
    > $out/sanitize-$tool.log 2>&1 &
done
wait
for tool in memcheck racecheck initcheck; do
  echo "$tool: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $out/sanitize-$tool.log | tail -3 | tr '\n' ' ')"
done
echo "sanitizers $((SECONDS - start)) s"
printf '8192 8192 f64\n6000 8192 f64\n10000 8192 f64\n8192 8192 f64 pad_in 0 pad_out 16\n4096 4096 f64 8\n16384 16384 f64\n' > /tmp/f64.txt
/tmp/v/xpose-head bench --suite /tmp/f64.txt --kernels memcpy,auto,tiled_padded_rows,cublas_geam --no-progress \
  --format json --output $out/f64-views.json > $out/f64-views.txt 2> $out/f64-views.err
grep -E "Matrix|auto|tiled_padded_rows|memcpy " $out/f64-views.txt
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
