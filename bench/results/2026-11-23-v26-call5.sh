#!/usr/bin/env bash
# H200, v26 call 5: the H200's own large f16 shape (DeviceTileTuning<2>) validated at HEAD. Build; the
# whole test suite; shapes2d; memcheck and racecheck on the production tests (small sizes) and,
# at full size, on LargeAlignedShapesMatchReference for `tile` u16 and f32 (which take the H200 shapes).
set -uo pipefail
out=$OUT
start=$SECONDS
nvidia-smi > $out/nvidia-smi.txt 2>&1
scripts/setup.sh -G Ninja > $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $((SECONDS - start)) s"
x=build/tools/xpose/xpose
ctest --test-dir build --output-on-failure -j 4 > $out/cuda-tests.log 2>&1; grep -E "tests passed|\(Failed\)" $out/cuda-tests.log | head
echo "== shapes2d ($((SECONDS - start)) s)"
$x bench --suite bench/suites/shapes2d.txt --format json --no-progress --output $out/shapes2d.json > $out/shapes2d.txt 2> $out/shapes2d.err
python3 tools/check_targets.py $out/shapes2d.json > $out/targets.txt; grep -E "cases meet" $out/targets.txt
python3 - $out/shapes2d.json <<'PY' | tee $out/shapes2d-summary.txt
import json, sys
d = json.load(open(sys.argv[1]))
for c in d['cases']:
    row = {v['kernel']: v for v in c['results'] if v.get('median_us')}
    seeds = [k for k in row if k.startswith(('tiled', 'naive'))]
    best = max(seeds, key=lambda k: row[k]['pct_memcpy'])
    cb = row.get('cublas_geam')
    print('%-24s auto %8.2f %5.1f%%  seed %-17s %8.2f  cublas %s' % (c['label'][:24], row['auto']['median_us'],
          row['auto']['pct_memcpy'], best[:17], row[best]['median_us'], '%.2f' % cb['median_us'] if cb else '-'))
PY
echo "== sanitizers ($((SECONDS - start)) s)"
left=$((570 - (SECONDS - start)))
OUT=$out timeout $((left * 2 / 3)) scripts/gpu_check.sh sanitize
left=$((575 - (SECONDS - start)))
timeout $left compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/xpose_tests_cuda \
  --gtest_filter='*LargeAligned*/tile_u16:*LargeAligned*/tile_f32' > $out/sanitize-memcheck-large-aligned.log 2>&1
echo "large aligned memcheck: rc $? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $out/sanitize-memcheck-large-aligned.log | tr '\n' ' ')"
tar czf $out.tgz -C $out . && mv $out.tgz $out/all.tgz
echo "done $((SECONDS - start)) s"
