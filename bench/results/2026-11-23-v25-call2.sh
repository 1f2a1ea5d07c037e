#!/usr/bin/env bash
# H100, v25 call 2: the rounds with the case-wide buffer rotation (call 1's rounds reused the
# previous variant's pairs). Build; harness and runner tests; 1024^2 f32 in 8 processes (4 with
# --rounds 1, 4 with the default 4 rounds); shapes2d twice with the default rounds, targets of each.
set -uo pipefail
out=$OUT
start=$SECONDS
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $((SECONDS - start)) s"
x=build/tools/xpose/xpose
(ctest --test-dir build -R "bench_harness|BenchRunner|^cli" --output-on-failure > $out/harness-tests.log 2>&1; tail -3 $out/harness-tests.log | head -1)
echo "== 1024x1024 f32, rounds 1 / 4, 4 processes each"
for p in 1 2 3 4; do
  for r in 1 4; do
    $x bench --rows 1024 --cols 1024 --dtype f32 --kernels memcpy,auto,tile,tiled_diagonal --rounds $r --no-progress 2>&1 \
      | grep -E "^  (memcpy|auto|tile|tiled_diagonal) " | tr -s ' ' | sed "s/^/p$p rounds$r/"
  done
done | tee $out/small-rounds.txt | cut -c1-60
for run in a b; do
  echo "== shapes2d $run ($((SECONDS - start)) s)"
  $x bench --suite bench/suites/shapes2d.txt --format json --no-progress --output $out/shapes2d-$run.json > $out/shapes2d-$run.txt 2> $out/shapes2d-$run.err
  python3 tools/check_targets.py $out/shapes2d-$run.json > $out/targets-$run.txt
  grep -E "MISSED|cases meet" $out/targets-$run.txt
  grep -A10 "Matrix 8192 x 8192 f64" $out/shapes2d-$run.txt | grep -E "tiled_padded_rows|auto"
  grep -A10 "Matrix 1024 x 1024 f32" $out/shapes2d-$run.txt | grep -E "memcpy|tiled_diagonal|auto"
  grep -A10 "Matrix 8191 x 8193 u8" $out/shapes2d-$run.txt | grep -E "memcpy|auto"
done
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
