#!/bin/bash
# v23 call 2 (H100): the partial last row tile (8191 rows = 31 full row tiles of 256 and one of 255, which took the
# masked form with its halo in a round trip of its own). Variants of the same source (tile_kernel.cu switches):
#   base     the tile kernel as committed (XPOSE_EXP_GROUPED_U8=0 XPOSE_EXP_PARTIAL_ROWS=0)
#   partial  full-width tiles with fewer rows inside the view take the unmasked loads (halo in the same batch) and the
#            masked store (XPOSE_EXP_PARTIAL_ROWS=1)
# Alternating rounds; base alone also on views of the same output stride with and without a partial last row tile.
# Timing only (rows verified by the bench); the table prints last, everything in $OUT/r.tgz.
set -u
R=$OUT/r; mkdir -p $R/json
build() {  # name grouped partial
  cmake -S . -B /tmp/$1 -G Ninja -DCMAKE_BUILD_TYPE=Release -DXPOSE_BUILD_TESTS=OFF \
    "-DCMAKE_CUDA_FLAGS=-DXPOSE_EXP_GROUPED_U8=$2 -DXPOSE_EXP_PARTIAL_ROWS=$3" > $R/cfg-$1.log 2>&1 &&
  cmake --build /tmp/$1 --target xpose_cli -j 8 > $R/build-$1.log 2>&1 || echo "BUILD FAILED $1"
}
build base 0 0 & build partial 0 1 & wait
for v in base partial; do [ -x /tmp/$v/tools/xpose/xpose ] || { tail -30 $R/build-$v.log; exit 1; }; done
run() {  # variant label rows cols pad_in pad_out
  /tmp/$1/tools/xpose/xpose bench --rows $3 --cols $4 --dtype u8 --pad-in $5 --pad-out $6 --kernels auto --reps 40 \
    --warmup 5 --format json --output $R/json/$2_$1.json --no-progress > /dev/null 2>> $R/errors.txt
}
for round in 1 2 3; do
  order="base partial"; [ $round = 2 ] && order="partial base"
  for v in $order; do
    run $v odd_8191x8193_r$round 8191 8193 0 0
    run $v odd_12345x6789_r$round 12345 6789 0 0
    run $v odd_16383x16385_r$round 16383 16385 0 0
    run $v odd_1000003x300_r$round 1000003 300 0 0
    run $v large_3001x5003_r$round 3001 5003 0 0
    run $v fewrows_300x1000003_r$round 300 1000003 0 0
  done
  run base ctl_8191x8193_ldo8193_r$round 8191 8193 0 2
  run base ctl_8192x8193_ldo8193_r$round 8192 8193 0 1
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
