#!/bin/bash
# v23 call 1 (H100): the grouped layout for u8 full tiles of unaligned shapes (tile_kernel.cu, load_grouped_full /
# store_grouped_full) against the layout before it (XPOSE_EXP_GROUPED_U8=0, the same source), same machine, alternating
# rounds; the u8 GPU tests of the tile kernels first; where the tall u8 kernel spills (SASS).
# Everything lands in $OUT/r.tgz; the table prints last.
set -u
R=$OUT/r; mkdir -p $R/json
rm -rf /tmp/base && mkdir -p /tmp/base && cp -r CMakeLists.txt cmake include src tools bench scripts examples tests /tmp/base/
(cmake -S /tmp/base -B /tmp/base/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_BUILD_TESTS=OFF \
   "-DCMAKE_CUDA_FLAGS=-DXPOSE_EXP_GROUPED_U8=0" > $R/base-cfg.log 2>&1 && cmake --build /tmp/base/b --target xpose_cli -j 6 > $R/base-build.log 2>&1 || echo "BASE BUILD FAILED") &
scripts/setup.sh -G Ninja > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
wait
declare -A X=([base]=/tmp/base/b/tools/xpose/xpose [grouped]=build/tools/xpose/xpose)
for v in base grouped; do [ -x ${X[$v]} ] || { echo "missing $v"; tail -20 $R/base-build.log; exit 1; }; done
filter='*/tile_u8*:*/auto_u8*:PropertyCudaTile.*:PropertyCuda/RandomTransposesCuda.*/tile:PropertyCuda/RandomTransposesCuda.*/auto'
build/tests/xpose_tests_cuda --gtest_filter="$filter" > $R/tests-u8.log 2>&1; echo "tests exit $?" | tee $R/tests-status.txt
grep -E "PASSED|FAILED|tests ran" $R/tests-u8.log | tail -4
run() {  # variant label rows cols pad_in pad_out
  ${X[$1]} bench --rows $3 --cols $4 --dtype u8 --pad-in $5 --pad-out $6 --kernels auto --reps 30 --warmup 5 \
    --format json --output $R/json/$2_$1.json --no-progress > /dev/null 2>> $R/errors.txt
}
for round in 1 2; do
  for v in base grouped; do
    [ $round = 2 ] && v=$([ $v = base ] && echo grouped || echo base)
    run $v odd_8191x8193_r$round 8191 8193 0 0
    run $v ldout8224_8191x8193_r$round 8191 8193 0 33
    run $v odd_12345x6789_r$round 12345 6789 0 0
    run $v odd_16383x16385_r$round 16383 16385 0 0
    run $v odd_100003x1000_r$round 100003 1000 0 0
    run $v odd_1000003x300_r$round 1000003 300 0 0
    run $v large_3001x5003_r$round 3001 5003 0 0
    run $v fewrows_300x1000003_r$round 300 1000003 0 0
    run $v aligned_16384x16384_r$round 16384 16384 0 0
  done
done
cuobjdump -sass build/src/libxpose.a 2>/dev/null > $R/sass.txt || cuobjdump -sass build/tests/xpose_tests_cuda > $R/sass.txt 2>&1
python3 - $R <<'PY' > $R/spills.txt
import sys, re
name = None; counts = {}
for line in open(sys.argv[1] + '/sass.txt', errors='replace'):
    m = re.search(r'Function : (\S+)', line)
    if m: name = m.group(1); continue
    if name and 'TileShapeILi1E' in name and 'Lb1E' in name:
        for op in ('STL', 'LDL'):
            if re.search(r'\b' + op + r'\b', line): counts.setdefault(name, {}).setdefault(op, []).append(line.strip()[:90])
for n, c in counts.items():
    print(n[-110:]); [print('  ', op, len(v), v[:4]) for op, v in c.items()]
PY
cat > /tmp/tables.py <<'PY'
import json, glob, os, sys, collections
R = sys.argv[1]
rows = collections.OrderedDict()
for f in sorted(glob.glob(R + '/json/*.json')):
    name = os.path.basename(f)[:-5]
    case, variant = name.rsplit('_', 1)
    case, rnd = case.rsplit('_r', 1)
    c = json.load(open(f))['cases'][0]
    a = [r for r in c['results'] if r['kernel'] == 'auto'][0]
    rows.setdefault(case, collections.OrderedDict()).setdefault(variant, []).append(
        '%.2f(%.1f%%)%s' % (a['median_us'], a['pct_memcpy'], '' if a['status'] == 'passed' else '!' + a['status']))
for case, vs in rows.items():
    print('%-24s' % case, '   '.join('%s %s' % (v, ' '.join(x)) for v, x in vs.items()))
PY
python3 /tmp/tables.py $R > $R/tables.txt
tar czf $OUT/r.tgz -C $OUT r
cat $R/spills.txt | head -20; cat $R/tables.txt; head -5 $R/errors.txt 2>/dev/null
