#!/bin/bash
# v23 call 5 (H100): the partial-row instantiation as committed (db2eb82) against no partial-row instantiation, on the
# few-row views, after the suite run of call 4 showed 300 x 1000003 f32 at 933 us (v22's suite 907; call 3's combined
# kernel 914 -> 883). Variants (same source, edited copies):
#   inst   as committed: views of at most kPartialFormMaxRowTiles row tiles take the PartialRows instantiation
#   none   kPartialFormMaxRowTiles = 0: no view takes it (every kernel's PTX as at 79c0b61)
#   uns    as inst, the row guard of load_realigned_full in call 3's unsigned form
# Alternating rounds; table last; everything in $OUT/r.tgz.
set -u
R=$OUT/r; mkdir -p $R/json
tree() { rm -rf /tmp/$1 && mkdir -p /tmp/$1 && cp -r CMakeLists.txt cmake include src tools bench scripts examples tests /tmp/$1/; }
tree inst; tree none; tree uns
python3 - <<'PY' || exit 1
def edit(path, old, new):
    s = open(path).read(); assert s.count(old) == 1, old; open(path, 'w').write(s.replace(old, new))
edit('/tmp/none/src/cuda/tuning.hpp', 'constexpr int64_t kPartialFormMaxRowTiles = 8;', 'constexpr int64_t kPartialFormMaxRowTiles = 0;')
edit('/tmp/uns/src/cuda/tile_kernel.cu', 'if (!PartialRows || static_cast<int>(threadIdx.x) / kGroup + k * kRowsPerPass < rows_here) {',
     'if (!PartialRows || threadIdx.x / kGroup + k * kRowsPerPass < static_cast<unsigned>(rows_here)) {')
PY
for v in inst none uns; do
  (cmake -S /tmp/$v -B /tmp/$v/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_BUILD_TESTS=OFF > $R/cfg-$v.log 2>&1 &&
   cmake --build /tmp/$v/b --target xpose_cli -j 6 > $R/build-$v.log 2>&1 || echo "BUILD FAILED $v") &
done; wait
for v in inst none uns; do [ -x /tmp/$v/b/tools/xpose/xpose ] || { tail -20 $R/build-$v.log; exit 1; }; done
run() {  # variant label rows cols dtype
  /tmp/$1/b/tools/xpose/xpose bench --rows $3 --cols $4 --dtype $5 --kernels auto --reps 20 --warmup 3 \
    --format json --output $R/json/$2_$1.json --no-progress > /dev/null 2>> $R/errors.txt
}
for round in 1 2; do
  order="inst none uns"; [ $round = 2 ] && order="uns none inst"
  for v in $order; do
    run $v f32_300x1000003_r$round 300 1000003 f32
    run $v u8_300x1000003_r$round 300 1000003 u8
    run $v f16_300x1000003_r$round 300 1000003 f16
    run $v f32_1000x200003_r$round 1000 200003 f32
  done
done
python3 - $R <<'PY' | tee $R/tables.txt
import json, glob, os, sys, collections
R = sys.argv[1]; rows = collections.OrderedDict()
for f in sorted(glob.glob(R + '/json/*.json')):
    name = os.path.basename(f)[:-5]
    case, variant = name.rsplit('_', 1)
    case, rnd = case.rsplit('_r', 1)
    c = json.load(open(f))['cases'][0]
    res = {r['kernel']: r for r in c['results']}
    a = res['auto']; m = res.get('memcpy')
    s = '%.2f' % a['median_us'] + ('(%.1f%%)' % (100 * m['median_us'] / a['median_us']) if m and m['median_us'] else '')
    s += '' if a['status'] == 'passed' else '!' + a['status']
    rows.setdefault(case, collections.OrderedDict()).setdefault(variant, []).append(s)
for case, vs in rows.items():
    print('%-22s' % case, '   '.join('%s %s' % (v, ' '.join(x)) for v, x in vs.items()))
PY
tar czf $OUT/r.tgz -C $OUT r
