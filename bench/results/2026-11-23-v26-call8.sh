#!/usr/bin/env bash
# H100, v26 call 8: HEAD (f4d2666: the transposed u8 halo, the H200-only f16 shape): the whole
# suite, then shapes2d.
set -uo pipefail
out=$OUT
start=$SECONDS
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $((SECONDS - start)) s"
x=build/tools/xpose/xpose
ctest --test-dir build --output-on-failure -j 4 > $out/cuda-tests.log 2>&1; grep -E "tests passed|\(Failed\)" $out/cuda-tests.log | head
echo "== shapes2d ($((SECONDS - start)) s)"
if [ $((SECONDS - start)) -lt 480 ]; then
  $x bench --suite bench/suites/shapes2d.txt --format json --no-progress --output $out/shapes2d.json > $out/shapes2d.txt 2> $out/shapes2d.err
  python3 tools/check_targets.py $out/shapes2d.json > $out/targets.txt; grep -E "MISSED|cases meet" $out/targets.txt
fi
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
