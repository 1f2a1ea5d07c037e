#!/usr/bin/env bash
# H100: the launch-gate fallback (per variant) checked, then shapes2d with it.
set -uo pipefail
out=$OUT
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
x=build/tools/xpose/xpose
(ctest --test-dir build -R "bench_harness|^cli" --output-on-failure > $out/harness-tests.log 2>&1; tail -4 $out/harness-tests.log)
echo "== 2 x 67108864 f32, memcpy, cublas_geam, auto (gate on)"
$x bench --rows 2 --cols 67108864 --dtype f32 --kernels memcpy,cublas_geam,auto --no-progress > $out/geam-stall.txt 2> $out/geam-stall.err
grep -E "memcpy|cublas|auto" $out/geam-stall.txt; cat $out/geam-stall.err
echo "== 256x256 f32 batch 1024, cublas_geam (one geam per matrix)"
$x bench --rows 256 --cols 256 --batch 1024 --dtype f32 --kernels memcpy,cublas_geam,auto --no-progress > $out/geam-batch.txt 2> $out/geam-batch.err
grep -E "memcpy|cublas|auto" $out/geam-batch.txt; cat $out/geam-batch.err
echo "== 1024x1024 f32, gate on / off, 3 rounds each"
for r in 1 2 3; do
  for g in "" "--no-launch-gate"; do
    $x bench --rows 1024 --cols 1024 --dtype f32 --kernels memcpy,auto $g --no-progress 2>&1 | grep -E "memcpy|auto" | tr -s ' ' | sed "s/^/round $r ${g:-gate}: /"
  done
done | tee $out/small-gate.txt
echo "== shapes2d"
$x bench --suite bench/suites/shapes2d.txt --format json --no-progress --output $out/shapes2d.json > $out/shapes2d.txt 2> $out/shapes2d.err
cat $out/shapes2d.err
python3 tools/check_targets.py $out/shapes2d.json | tee $out/targets.txt
grep -c "timed without the launch gate" $out/shapes2d.txt
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
