#!/usr/bin/env bash
# H100, v25 call 1: the bench's alternating rounds. Build; the harness and runner tests; 1024^2 f32
# in 8 processes (4 with --rounds 1, the old order, 4 with the default 4 rounds); shapes2d with the
# default rounds and its targets; then, as time allows, the full test suite and the two probes
# after their probe_timing.hpp refactor (one short run each).
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi > $out/nvidia-smi.txt 2>&1
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $((SECONDS - start)) s"
x=build/tools/xpose/xpose
(ctest --test-dir build -R "bench_harness|BenchRunner|^cli" --output-on-failure > $out/harness-tests.log 2>&1; tail -3 $out/harness-tests.log)
echo "== 1024x1024 f32, rounds 1 / 4 alternating, 4 processes each"
for p in 1 2 3 4; do
  for r in 1 4; do
    $x bench --rows 1024 --cols 1024 --dtype f32 --kernels memcpy,auto,tile,tiled_diagonal --rounds $r --no-progress 2>&1 \
      | grep -E "^  (memcpy|auto|tile|tiled_diagonal) " | tr -s ' ' | sed "s/^/p$p rounds$r/"
  done
done | tee $out/small-rounds.txt | cut -c1-60
echo "== shapes2d ($((SECONDS - start)) s)"
$x bench --suite bench/suites/shapes2d.txt --format json --no-progress --output $out/shapes2d.json > $out/shapes2d.txt 2> $out/shapes2d.err
grep -c "timed without the launch gate" $out/shapes2d.txt
python3 tools/check_targets.py $out/shapes2d.json > $out/targets.txt; tail -25 $out/targets.txt
echo "== full suite ($((SECONDS - start)) s)"
timeout $((540 - (SECONDS - start) > 30 ? 540 - (SECONDS - start) - 60 : 1)) ctest --test-dir build --output-on-failure -j 4 > $out/cuda-tests.log 2>&1; tail -4 $out/cuda-tests.log
echo "== probes ($((SECONDS - start)) s)"
left=$((560 - (SECONDS - start)))
if [ $left -gt 40 ]; then
  timeout $((left / 2)) bench/probes/run_walk_bands.sh bands 1 > $out/walk-bands.txt 2>&1; tail -8 $out/walk-bands.txt
  left=$((570 - (SECONDS - start)))
  [ $left -gt 10 ] && timeout $left bench/probes/run_address_offsets.sh 1 8191 8193 u8 > $out/address-offsets.txt 2>&1; tail -6 $out/address-offsets.txt
fi
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
