#!/bin/bash
# v23 call 3 (H100): the partial-row path (call 2's `partial`) on views whose unaligned shape is not the tall u8 one:
# few-row views (300 x N: the third row tile of 128 holds 44 rows), the odd shapes2d views of 2- and 4-byte elements
# (their last row tile of 128 holds 127 rows), and small u8 views that take the large unaligned shape.
# base / partial as in call 2; alternating rounds; timing (rows verified by the bench); table last, all in $OUT/r.tgz.
set -u
R=$OUT/r; mkdir -p $R/json
build() {  # name grouped partial
  cmake -S . -B /tmp/$1 -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_BUILD_TESTS=OFF \
    "-DCMAKE_CUDA_FLAGS=-DXPOSE_EXP_GROUPED_U8=$2 -DXPOSE_EXP_PARTIAL_ROWS=$3" > $R/cfg-$1.log 2>&1 &&
  cmake --build /tmp/$1 --target xpose_cli -j 8 > $R/build-$1.log 2>&1 || echo "BUILD FAILED $1"
}
[ -x /tmp/base/tools/xpose/xpose ] || build base 0 0 & [ -x /tmp/partial/tools/xpose/xpose ] || build partial 0 1 & wait
for v in base partial; do [ -x /tmp/$v/tools/xpose/xpose ] || { tail -30 $R/build-$v.log; exit 1; }; done
run() {  # variant label rows cols dtype
  /tmp/$1/tools/xpose/xpose bench --rows $3 --cols $4 --dtype $5 --kernels auto --reps 30 \
    --warmup 5 --format json --output $R/json/$2_$1.json --no-progress > /dev/null 2>> $R/errors.txt
}
for round in 1 2; do
  order="base partial"; [ $round = 2 ] && order="partial base"
  for v in $order; do
    run $v fewrows_300x1000003_u8_r$round 300 1000003 u8
    run $v fewrows_300x1000003_f16_r$round 300 1000003 f16
    run $v fewrows_300x1000003_f32_r$round 300 1000003 f32
    run $v odd_8191x8193_f32_r$round 8191 8193 f32
    run $v odd_12345x6789_f32_r$round 12345 6789 f32
    run $v odd_8191x8193_f16_r$round 8191 8193 f16
    run $v tall_1000003x301_f16_r$round 1000003 301 f16
    run $v tall_1000003x301_f32_r$round 1000003 301 f32
    run $v small_3001x5003_f32_r$round 3001 5003 f32
    run $v small_2049x8193_u8_r$round 2049 8193 u8
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
    print('%-26s' % case, '   '.join('%s %s' % (v, ' '.join(x)) for v, x in vs.items()))
PY
tar czf $OUT/r.tgz -C $OUT r
