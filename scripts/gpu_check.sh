#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On a GPU machine: build, run the whole test suite (GPU tests included), then the benchmarks and
# the profiler, logging everything under ${OUT:-gpu-out}. Stages: build tests sanitize bench profile
# pack (default: build tests bench). Example: OUT=/tmp/o scripts/gpu_check.sh build tests bench pack
# sanitize: memcheck, racecheck and initcheck side by side on SANITIZE_FILTER (default: the
# production kernels' tests, at XPOSE_TEST_SMALL sizes).
# pack: everything under $out as one $out/all.tgz (the device tool brings back only a few files).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build tests bench)
bench=build/tools/xpose/xpose
date_tag="$(date +%Y-%m-%d)"
gpu_tag="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr ' ' '-' | tr -cd 'A-Za-z0-9-' | tr 'A-Z' 'a-z')"
status=0

for stage in "${stages[@]}"; do
  case "$stage" in
    build)
      nvidia-smi > "$out/nvidia-smi.txt" 2>&1
      scripts/setup.sh -G Ninja > "$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; } ;;
    tests)
      ctest --test-dir build --output-on-failure -j 4 > "$out/tests.log" 2>&1 || status=1
      tail -5 "$out/tests.log" ;;
    sanitize)
      production='*/tile_*:*/auto_*:*/deinterleave_*:*/interleave_*:*/contiguous_copy_*:PropertyCudaTile.*'
      for kernel in tile auto interleave deinterleave contiguous_copy; do
        production+=":PropertyCuda/RandomTransposesCuda.*/$kernel"
      done
      for tool in memcheck racecheck initcheck; do
        XPOSE_TEST_SMALL="${XPOSE_TEST_SMALL-1}" compute-sanitizer --tool "$tool" --error-exitcode 9 \
          build/tests/xpose_tests_cuda --gtest_filter="${SANITIZE_FILTER:-$production}" \
          > "$out/sanitize-$tool.log" 2>&1 &
      done
      for job in $(jobs -p); do wait "$job" || status=1; done
      for tool in memcheck racecheck initcheck; do
        echo "$tool: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|tests? ran|PASSED|FAILED" "$out/sanitize-$tool.log" | tail -3 | tr '\n' ' ')"
      done ;;
    bench)
      for suite in ${SUITES:-seeds shapes2d}; do
        # The JSON goes to --output, the table to stdout.
        $bench bench --suite "bench/suites/$suite.txt" --format json --no-progress \
          --output "$out/$date_tag-$gpu_tag-$suite.json" ${BENCH_KERNELS:+--kernels $BENCH_KERNELS} \
          > "$out/$date_tag-$gpu_tag-$suite.txt" 2>"$out/bench-$suite.err" || status=1
      done
      # The production targets, where the run has the 2D suite (exit status 1 marks a miss).
      if [ -f "$out/$date_tag-$gpu_tag-shapes2d.json" ]; then
        python3 tools/check_targets.py "$out/$date_tag-$gpu_tag-shapes2d.json" | tee "$out/$date_tag-$gpu_tag-targets.txt"
      fi ;;
    profile)
      python3 tools/profile_kernels.py --xpose "$bench" --rows 8192 --cols 8192 --dtype f32 \
        > "$out/$date_tag-$gpu_tag-ncu-f32.txt" 2>&1 || status=1
      cat "$out/$date_tag-$gpu_tag-ncu-f32.txt" ;;
    pack)
      # Written beside $out, then moved in: tar reading a folder it is writing into exits 1.
      tar czf "$out.all.tgz" --exclude=./all.tgz -C "$out" . && mv "$out.all.tgz" "$out/all.tgz" \
        && echo "packed: $out/all.tgz" ;;
  esac
done
exit $status
